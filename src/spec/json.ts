import { z } from 'zod';

/** Any JSON value. Tool arguments and outputs are JSON by contract. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export const Json: z.ZodType<Json> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(z.string(), Json)]),
);

/** A JSON Schema object as sent to a provider (kept loose on purpose). */
export const JsonSchema = z.record(z.string(), z.unknown());
export type JsonSchema = z.infer<typeof JsonSchema>;

/**
 * Canonical JSON: object keys sorted, no whitespace. Two values that mean the
 * same thing serialise to the same string, so hashes and fingerprints are
 * stable across key order.
 *
 * Written as loops over one string rather than keys().filter().sort().map()
 * and join(): every request of a replayed trial is hashed through this
 * (src/spec/request-hash.ts), and the four arrays per object, and the
 * sort's own work array, were most of what a hash allocated. The text is
 * the same: keys in the default sort order (UTF-16 code units), undefined
 * properties left out, undefined or unserialisable items `null`, an
 * array's holes left empty (as `join` writes them).
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object') return primitiveJson(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) text += ',';
      const item: unknown = value[index];
      if (item !== undefined || index in value) text += canonicalJson(item);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(Object.keys(record));
  let text = '{';
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += keyText(key);
    text += canonicalJson(item);
  }
  return `${text}}`;
}

/**
 * A number or boolean as JSON.stringify writes it, without entering it (a
 * finite number's JSON is its string form, -0 included); anything else
 * through JSON.stringify itself. Most leaves of a request are these.
 */
function primitiveJson(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? `${value}` : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value) ?? 'null';
}

/**
 * `"key":` of each key seen, made once: a request's objects repeat a few
 * keys (role, content, name...) on every turn. Bounded, as the keys of tool
 * arguments are anyone's: past the bound a key is quoted each time.
 */
const keyTexts = new Map<string, string>();
const KEY_TEXTS_MAX = 4096;

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < KEY_TEXTS_MAX) keyTexts.set(key, text);
  }
  return text;
}

/** Objects this small are sorted in place by insertion (no work array); larger ones by `sort`. */
const INSERTION_SORT_MAX = 16;

/** `keys` sorted as `keys.sort()` sorts them (string order), in place. */
function sortedKeys(keys: string[]): string[] {
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let index = 1; index < keys.length; index += 1) {
    const key = keys[index]!;
    let at = index - 1;
    while (at >= 0 && keys[at]! > key) {
      keys[at + 1] = keys[at]!;
      at -= 1;
    }
    keys[at + 1] = key;
  }
  return keys;
}
