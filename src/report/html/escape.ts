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

/** The escaping of `jsonForScript`, on JSON text already made (character by character, so it can be applied piece by piece). */
export function escapeJsonForScript(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
