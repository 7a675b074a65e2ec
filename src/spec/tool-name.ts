import { createHash } from 'node:crypto';

/** Names most providers accept for a function tool. */
export const PROVIDER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Encode an exposed tool name for providers whose names must match
 * PROVIDER_NAME_PATTERN. Legal names pass through unchanged; a dot becomes a
 * double underscore; any other character becomes `_xHH_`; a name still
 * longer than 64 characters is cut and given a short hash suffix.
 * Decoding is done with the per-request map built by `encodeToolNames`
 * (so it is exact); `validateToolNames` rejects sets that would collide.
 */
export function encodeToolName(name: string): string {
  if (PROVIDER_NAME_PATTERN.test(name)) return name;
  let encoded = '';
  for (const char of name) {
    if (/[a-zA-Z0-9_-]/.test(char)) encoded += char;
    else if (char === '.') encoded += '__';
    else encoded += `_x${char.codePointAt(0)!.toString(16)}_`;
  }
  if (encoded.length > 64) {
    const suffix = createHash('sha256').update(name).digest('hex').slice(0, 8);
    encoded = `${encoded.slice(0, 55)}_${suffix}`;
  }
  return encoded;
}

/** Map of encoded → original for one request's tools; decode with `decodeToolName`. */
export function encodeToolNames(names: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const name of names) map.set(encodeToolName(name), name);
  return map;
}

/** A name the model produced, decoded; a name not in the map is kept as written (scored as unknown). */
export function decodeToolName(encoded: string, map: ReadonlyMap<string, string>): string {
  return map.get(encoded) ?? encoded;
}

/**
 * Problems that make a set of exposed names impossible to send reversibly:
 * empty names, and two names that encode to the same wire name (or collide
 * with another tool's legal name).
 */
export function validateToolNames(names: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    if (name.length === 0) {
      problems.push('a tool name is empty');
      continue;
    }
    const encoded = encodeToolName(name);
    const other = seen.get(encoded);
    if (other !== undefined && other !== name) {
      problems.push(
        `tool names "${other}" and "${name}" both encode to "${encoded}" for providers that only accept ${PROVIDER_NAME_PATTERN}`,
      );
    }
    seen.set(encoded, name);
  }
  return problems;
}
