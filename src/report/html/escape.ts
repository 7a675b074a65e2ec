/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function htmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * JSON safe to embed in a `<script type="application/json">` element: every
 * `<` becomes `\u003c` (so no `</script>` or `<!--` can end or confuse the
 * element), and U+2028/U+2029 are escaped too. JSON.parse reads it back
 * unchanged.
 */
export function jsonForScript(value: unknown): string {
  return escapeJsonForScript(JSON.stringify(value));
}

const SCRIPT_UNSAFE = /[<>&\u2028\u2029]/;
const SCRIPT_UNSAFE_ALL = /[<>&\u2028\u2029]/g;
const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * The escaping of `jsonForScript`, on JSON text already made (character by
 * character, so it can be applied piece by piece). Most text (a run's
 * embedded trials, ~4 MB at 10,000 trials) has none of the five: one test
 * finds out, instead of five passes over it; the rest is escaped in one pass.
 */
export function escapeJsonForScript(json: string): string {
  return SCRIPT_UNSAFE.test(json) ? json.replace(SCRIPT_UNSAFE_ALL, (char) => SCRIPT_ESCAPES[char]!) : json;
}
