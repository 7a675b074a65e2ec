/** Slots of a `RecentStrings` (a power of two). */
const SLOTS = 256;

/** A slot by a span's length and first character: a generated file's few keys and values rarely share one. */
function slotOf(text: string, start: number, end: number): number {
  return ((end - start) * 31 + text.charCodeAt(start)) & (SLOTS - 1);
}

/**
 * The last strings the plain YAML reader (plain-yaml.ts) read, one per slot
 * by length and first character. A generated file repeats the same few keys
 * and plain values on every task; one found here (compared in place with
 * `startsWith`) is the very string read before, with no substring made, no
 * resolution, no lookup — and a key that is always the same string object
 * keeps a mapping's property stores on V8's fast path, where a fresh one is
 * looked up in its string table at every store. Only a string that is
 * exactly its span's text may be remembered (a plain scalar that resolves to
 * itself; never a number, a boolean or null).
 */
export class RecentStrings {
  readonly #slots = new Array<string | undefined>(SLOTS).fill(undefined);

  /** The string remembered for `text` from `start` to `end` when it is exactly that text; else undefined. */
  find(text: string, start: number, end: number): string | undefined {
    const recent = this.#slots[slotOf(text, start, end)];
    return recent !== undefined && recent.length === end - start && text.startsWith(recent, start) ? recent : undefined;
  }

  /** Remember `value`, the text from `start` to `end`. */
  remember(text: string, start: number, end: number, value: string): void {
    this.#slots[slotOf(text, start, end)] = value;
  }
}
