import type { FastParse } from './fast-yaml.ts';
import {
  OUTSIDE,
  SPACE,
  NEWLINE,
  HASH,
  DASH,
  COMMA,
  DOUBLE_QUOTE,
  SINGLE_QUOTE,
  COLON,
  OPEN_BRACKET,
  CLOSE_BRACKET,
  OPEN_BRACE,
  CLOSE_BRACE,
  canStartPlain,
  ASCII,
  PRINTABLE_ASCII,
  KEY,
  FLOW_PLAIN,
  fitted,
  resolvePlain,
  UNSURE,
} from './plain-yaml-tokens.ts';
import { RecentStrings } from './recent-strings.ts';
import { doubleQuoted, singleQuoted, foldedStripped } from './plain-yaml-scalars.ts';
import { latin1Bytes } from './file-bytes.ts';

/**
 * The fastest parse of a suite file: an exact reader for the plain subset of
 * YAML that generated suites are written in (issue 20).
 *
 * js-yaml (src/load/fast-yaml.ts) spends ~0.7 s of CPU on 10,000 generated
 * tasks building an event stream and then values from it. Generated files
 * use a small part of YAML — block mappings and sequences, one-line flow
 * collections, one-line quoted and plain scalars — which this reader turns
 * into the same values in one pass over the characters, ~10× faster.
 *
 * It is exact by refusing: the moment the text holds anything outside that
 * subset (an anchor, a tag, a block scalar other than the plainest `>-`, a multi-line scalar or flow
 * collection, an indented comment, a tab, a CR, a duplicate or non-string
 * key, a character js-yaml would reject, anything it is not sure of) it
 * returns null and js-yaml reads the file, and `yaml` after it when there
 * is an error to word. Plain scalars are resolved by js-yaml's own core
 * schema, so `1`, `true`, `null`, `~` and `0x1F` mean exactly what they mean
 * there. The item offsets it reports are the ones js-yaml's events give
 * (test/load/plain-yaml.test.ts compares both on many documents).
 */

/** What may follow a JSON-like key's `:` (`jsonLikeKey`). */
const JSON_LIKE_VALUE_START = /^[ "'[{0-9A-Za-z-]$/;
const GREATER_THAN = '>'.charCodeAt(0);

class Reader {
  position = 0;
  /** The text as Latin-1 bytes when it is ASCII (see `slice`); a view of a buffer the next Reader reuses. */
  readonly #bytes: Buffer | null;
  /**
   * Each plain (unquoted) string value of the file, once. A generated suite
   * repeats a few of them on every task — its kind, the messages' role, the
   * expected action — and each read made a string of its own, ~90 bytes a
   * task that a loaded task holds until its trials are done (~9 MB for
   * 100,000 tasks). Quoted values (messages, arguments) are mostly distinct
   * and are left as they are.
   */
  readonly #plainStrings = new Map<string, string>();
  /** The last keys and plain strings read (recent-strings.ts). */
  readonly #recentKeys = new RecentStrings();
  readonly #recentPlain = new RecentStrings();
  constructor(
    readonly text: string,
    ascii: boolean,
  ) {
    this.#bytes = ascii ? latin1Bytes(text) : null;
  }

  /** A plain scalar's value, a string shared with every equal one of the file. */
  plainValue(start: number, end: number): unknown {
    const recent = this.#recentPlain.find(this.text, start, end);
    if (recent !== undefined) return recent;
    const value = resolvePlain(this.slice(start, end));
    if (typeof value !== 'string') return value;
    let known = this.#plainStrings.get(value);
    if (known === undefined) {
      known = value;
      this.#plainStrings.set(value, value);
    }
    this.#recentPlain.remember(this.text, start, end, known);
    return known;
  }

  /**
   * A scalar's text as a string of its own. V8 makes a slice of 13 or more
   * characters a view into the whole file's text, so a loaded task's
   * message would keep its whole file alive (~330 bytes a task, ~25 MB at
   * 100,000 tasks after the texts are gone). Copied from the bytes, it holds
   * only itself.
   */
  slice(start: number, end: number): string {
    return end - start >= 13 && this.#bytes ? this.#bytes.toString('latin1', start, end) : this.text.slice(start, end);
  }

  /** Column of the first non-space character of the line starting at `lineStart`. */
  indentAt(lineStart: number): number {
    let at = lineStart;
    while (this.text.charCodeAt(at) === SPACE) at++;
    return at - lineStart;
  }

  /**
   * Move to the start of the next line holding content (from a line start),
   * past blank lines and comment lines. Returns the indent of that line, or -1 at the end of the text.
   */
  nextContentLine(): number {
    const text = this.text;
    for (;;) {
      if (this.position >= text.length) return -1;
      const indent = this.indentAt(this.position);
      const at = this.position + indent;
      const code = text.charCodeAt(at);
      if (at >= text.length) {
        this.position = text.length;
        return -1;
      }
      if (code === NEWLINE) {
        this.position = at + 1;
        continue;
      }
      if (code === HASH) {
        const end = text.indexOf('\n', at);
        this.position = end === -1 ? text.length : end + 1;
        continue;
      }
      return indent;
    }
  }

  skipSpaces(): void {
    while (this.text.charCodeAt(this.position) === SPACE) this.position++;
  }

  /** After a value: spaces, an optional ` # comment`, then the end of the line (consumed). */
  endOfLine(): void {
    const text = this.text;
    const before = this.position;
    this.skipSpaces();
    const code = text.charCodeAt(this.position);
    if (code === HASH && this.position > before) {
      const end = text.indexOf('\n', this.position);
      this.position = end === -1 ? text.length : end + 1;
      return;
    }
    if (this.position >= text.length) return;
    if (code !== NEWLINE) throw UNSURE;
    this.position++;
  }

  /** A string key of a mapping at the position, up to its `:`; the position is left after `:`. */
  key(): string {
    const text = this.text;
    const start = this.position;
    KEY.lastIndex = start;
    if (!KEY.test(text)) throw UNSURE;
    const end = KEY.lastIndex - 1;
    this.position = KEY.lastIndex;
    const recent = this.#recentKeys.find(text, start, end);
    if (recent !== undefined) return recent;
    const key = resolvePlain(text.slice(start, end));
    if (typeof key !== 'string' || key === '__proto__') throw UNSURE;
    this.#recentKeys.remember(text, start, end, key);
    return key;
  }

  /**
   * A double-quoted key of a flow mapping, as JSON writes one (`{"a":1,"b":"x"}`: a generated
   * domain's canned tool outputs): its `:` right after the quote, then a space or a value that
   * starts with a quote, a bracket, a digit, `-` or a letter (anything else is js-yaml's).
   */
  jsonLikeKey(): string {
    const key = doubleQuoted(this);
    const text = this.text;
    if (text.charCodeAt(this.position) !== COLON || key === '__proto__') throw UNSURE;
    this.position++;
    if (!JSON_LIKE_VALUE_START.test(text[this.position] ?? '')) throw UNSURE;
    return key;
  }

  /** Does a `key:` start at the position (so `- key: value` opens a mapping)? */
  looksLikeKey(): boolean {
    KEY.lastIndex = this.position;
    return KEY.test(this.text);
  }

  /**
   * A block mapping whose keys start at column `indent`; the position is at
   * its first key. With `itemOffsets` (the document's root), the offsets of
   * the items of each value that is a sequence are kept under its key.
   */
  blockMapping(indent: number, itemOffsets: Map<string, number[]> | null = null): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (;;) {
      const key = this.key();
      if (Object.prototype.hasOwnProperty.call(map, key)) throw UNSURE;
      const offsets: number[] | null = itemOffsets ? [] : null;
      const value = this.blockValue(indent, offsets);
      map[key] = value;
      if (offsets && Array.isArray(value)) itemOffsets!.set(key, offsets);
      const next = this.nextContentLine();
      if (next < indent) return map;
      if (next > indent) throw UNSURE;
      this.position += next;
    }
  }

  /** A block sequence whose `-` are at column `indent`, at its first `-`; `offsets` receives each item's start. */
  blockSequence(indent: number, offsets: number[] | null): unknown[] {
    const text = this.text;
    const items: unknown[] = [];
    for (;;) {
      if (text.charCodeAt(this.position) !== DASH) throw UNSURE;
      const after = text.charCodeAt(this.position + 1);
      if (after !== SPACE) throw UNSURE; // `-` alone on its line: left to js-yaml
      this.position++;
      this.skipSpaces();
      const start = this.position;
      const first = text.charCodeAt(start);
      offsets?.push(first === DOUBLE_QUOTE || first === SINGLE_QUOTE ? start + 1 : start);
      items.push(this.looksLikeKey() ? this.blockMapping(this.column(start)) : this.inlineValue(indent, null));
      const next = this.nextContentLine();
      if (next < indent) return fitted(items);
      if (next > indent) throw UNSURE;
      // Not a `-`: a key of the enclosing mapping, at the sequence's column.
      if (text.charCodeAt(this.position + next) !== DASH) return fitted(items);
      this.position += next;
    }
  }

  column(offset: number): number {
    return offset - (this.text.lastIndexOf('\n', offset - 1) + 1);
  }

  /**
   * The value after `key:` of a mapping at `indent`: on the same line, or a
   * block below it (a sequence may sit at the key's own column). `offsets`
   * receives the item offsets of a sequence.
   */
  blockValue(indent: number, offsets: number[] | null): unknown {
    const text = this.text;
    this.skipSpaces();
    const code = text.charCodeAt(this.position);
    if (code === GREATER_THAN) return foldedStripped(this, indent);
    if (this.position < text.length && code !== NEWLINE && code !== HASH) return this.inlineValue(indent, offsets);
    if (code === HASH) throw UNSURE;
    if (this.position < text.length) this.position++;
    const lineStart = this.position;
    const next = this.nextContentLine();
    if (next === -1) return null;
    const first = text.charCodeAt(this.position + next);
    if (next > indent || (next === indent && first === DASH)) {
      this.position += next;
      if (first === DASH) return this.blockSequence(next, offsets);
      return this.blockMapping(next);
    }
    // An empty value: the next line belongs to an enclosing block.
    this.position = lineStart;
    return null;
  }

  /**
   * A value on the rest of the line (a flow collection, a quoted or a plain
   * scalar); the line may continue only with a comment. A more indented
   * line after it would continue it, which is left to js-yaml. `offsets`
   * receives the item offsets of a flow sequence.
   */
  inlineValue(indent: number, offsets: number[] | null): unknown {
    const text = this.text;
    const code = text.charCodeAt(this.position);
    let value: unknown;
    if (code === OPEN_BRACKET || code === OPEN_BRACE || code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      value = this.flowValue(offsets);
      this.endOfLine();
    } else {
      value = this.blockPlain();
    }
    const save = this.position;
    const next = this.nextContentLine();
    if (next > indent) throw UNSURE;
    this.position = save;
    return value;
  }

  /** A one-line plain scalar in block context, up to ` #` or the end of the line. */
  blockPlain(): unknown {
    const text = this.text;
    const start = this.position;
    if (!canStartPlain(text, start)) throw UNSURE;
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    // Searched in the line alone, so a search never runs on through the rest of the file.
    const line = text.slice(start, end);
    const comment = line.indexOf(' #');
    const stop = comment === -1 ? end : start + comment + 1;
    const colon = line.indexOf(': ');
    if ((colon !== -1 && start + colon < stop) || (comment === -1 && line.endsWith(':'))) throw UNSURE;
    let last = stop;
    while (last > start && text.charCodeAt(last - 1) === SPACE) last--;
    if (last === start) throw UNSURE;
    this.position = end < text.length ? end + 1 : end;
    return this.plainValue(start, last);
  }

  /** A flow collection or scalar that ends on this line; `offsets` receives a sequence's item starts. */
  flowValue(offsets: number[] | null): unknown {
    const text = this.text;
    const code = text.charCodeAt(this.position);
    if (code === OPEN_BRACKET) {
      this.position++;
      const items: unknown[] = [];
      for (;;) {
        this.skipSpaces();
        if (text.charCodeAt(this.position) === CLOSE_BRACKET) {
          this.position++;
          return fitted(items);
        }
        const at = this.position;
        const item = text.charCodeAt(at);
        offsets?.push(item === DOUBLE_QUOTE || item === SINGLE_QUOTE ? at + 1 : at);
        items.push(this.flowValue(null));
        this.skipSpaces();
        const separator = text.charCodeAt(this.position);
        if (separator === COMMA) this.position++;
        else if (separator !== CLOSE_BRACKET) throw UNSURE;
      }
    }
    if (code === OPEN_BRACE) {
      this.position++;
      const map: Record<string, unknown> = {};
      for (;;) {
        this.skipSpaces();
        if (text.charCodeAt(this.position) === CLOSE_BRACE) {
          this.position++;
          return map;
        }
        const quoted = text.charCodeAt(this.position) === DOUBLE_QUOTE;
        const key = quoted ? this.jsonLikeKey() : this.key();
        if (!quoted && text.charCodeAt(this.position) !== SPACE) throw UNSURE;
        if (Object.prototype.hasOwnProperty.call(map, key)) throw UNSURE;
        this.skipSpaces();
        map[key] = this.flowValue(null);
        this.skipSpaces();
        const separator = text.charCodeAt(this.position);
        if (separator === COMMA) this.position++;
        else if (separator !== CLOSE_BRACE) throw UNSURE;
      }
    }
    if (code === DOUBLE_QUOTE) return doubleQuoted(this);
    if (code === SINGLE_QUOTE) return singleQuoted(this);
    return this.flowPlain();
  }

  /** A plain scalar inside a flow collection: up to `,`, `]`, `}`; any `:`, `#` or bracket in it is left to js-yaml. */
  flowPlain(): unknown {
    const text = this.text;
    const start = this.position;
    if (!canStartPlain(text, start)) throw UNSURE;
    FLOW_PLAIN.lastIndex = start;
    if (!FLOW_PLAIN.test(text)) throw UNSURE;
    const at = FLOW_PLAIN.lastIndex;
    // It ends at the end of its entry; at a `:`, `#`, bracket, line end or the end of the text it is js-yaml's.
    const code = text.charCodeAt(at);
    if (code !== COMMA && code !== CLOSE_BRACKET && code !== CLOSE_BRACE) throw UNSURE;
    let last = at;
    while (last > start && text.charCodeAt(last - 1) === SPACE) last--;
    if (last === start) throw UNSURE;
    this.position = at;
    return this.plainValue(start, last);
  }
}

/**
 * The value and top-level item offsets of `text` when it lies in the plain
 * subset this reader knows, or null: then js-yaml must read it.
 */
export function parsePlain(text: string): FastParse | null {
  // Printable ASCII alone (a generated suite) is one scan for a plain character class; the precise patterns run only on other texts.
  const printable = PRINTABLE_ASCII.test(text);
  if (!printable && OUTSIDE.test(text)) return null;
  const reader = new Reader(text, printable || ASCII.test(text));
  try {
    // The root is a mapping at column 0 (document markers and directives are not keys: js-yaml reads those).
    if (reader.nextContentLine() !== 0) return null;
    const itemOffsets = new Map<string, number[]>();
    const value = reader.blockMapping(0, itemOffsets);
    if (reader.nextContentLine() !== -1) return null;
    return { value, itemOffsets };
  } catch {
    // Unsure, or anything else (a nesting too deep for the stack): the precise parsers decide.
    return null;
  }
}
