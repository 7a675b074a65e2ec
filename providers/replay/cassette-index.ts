// Never zod, nor the spec's index: the cassette worker builds this index (cassette-prefetch.ts).
import type { CassetteLine } from '../../src/spec/cassette.ts';
import type { LineBytes, LineCheck, LocatedLine } from './cassette-file.ts';
import type { CassetteSource } from './cassette-source.ts';
import { TurnKeys, grown, type TurnKeyFields, type TurnKeysSnapshot } from './turn-keys.ts';

/** A TurnIndex's per-row columns, in the order `#columns` gives them. */
type RowColumns = [Uint32Array, Float64Array, Uint32Array, Uint32Array, Uint8Array, Uint16Array, Uint16Array];

/** A TurnIndex of lines read from files, as plain data (its sources by file name), to move it between threads. */
export interface TurnIndexSnapshot {
  keys: TurnKeysSnapshot;
  files: string[];
  columns: RowColumns;
  hashes: Uint8Array;
  otherHashes: Map<number, string>;
}

/**
 * The turns of one recorded model, by turn key, without the lines held in
 * memory.
 *
 * Why: a 100,000-task cassette is 200,000 lines and ~130 MB of JSON; held
 * as parsed objects it was ~190 MB of heap for the whole run (and every
 * full collection marked it). Every line is still read and checked once
 * when the cassette is opened (cassette-file.ts: a bad line stops the run
 * before anything is written); what stays is, per turn key (turn-keys.ts),
 * where its line's bytes are in the file, its line number and its
 * `request_hash` — ~100 bytes a turn in typed arrays, outside the
 * JavaScript heap. A line is read again, parsed and checked when a trial
 * uses it (one positioned read) — only its `response` part when that can
 * be found (`responseText`). Lines given in memory (tests, hand-made
 * providers) are kept as they are.
 */
export class TurnIndex {
  /** Turn key → row. A key added again replaces its row: re-recording by appending wins. */
  #keys = new TurnKeys();
  #sources: CassetteSource[] = [];
  /** Per row: its source's place in #sources, plus one (0: a line held in #held). */
  #source: Uint32Array = new Uint32Array(1024);
  #offset: Float64Array = new Float64Array(1024);
  #length: Uint32Array = new Uint32Array(1024);
  #lineNumber: Uint32Array = new Uint32Array(1024);
  /** sha256 request hashes, 32 bytes a row (see #hashKind). */
  #hashes: Buffer = Buffer.allocUnsafe(32 * 1024);
  /** Per row: 0 no hash, 1 sha256 in #hashes, 2 another text in #otherHashes. */
  #hashKind: Uint8Array = new Uint8Array(1024);
  #otherHashes = new Map<number, string>();
  /**
   * Per row: the bytes of its line before and after its `response` value
   * (`responseSpan`); 0 before it when replay reads the whole line.
   */
  #responseAt: Uint16Array = new Uint16Array(1024);
  #responseTail: Uint16Array = new Uint16Array(1024);
  readonly #held = new Map<number, LocatedLine>();
  /** The end of the last line's text after its response (`responseSpan`), reused by lines that end alike. */
  readonly #afterResponse: AfterResponseMemo = { last: null };

  get size(): number {
    return this.#keys.size;
  }

  get #columns(): RowColumns {
    return [
      this.#source,
      this.#offset,
      this.#length,
      this.#lineNumber,
      this.#hashKind,
      this.#responseAt,
      this.#responseTail,
    ];
  }

  set #columns(columns: RowColumns) {
    [this.#source, this.#offset, this.#length, this.#lineNumber, this.#hashKind, this.#responseAt, this.#responseTail] =
      columns;
  }

  /** Only for an index of lines read from files (a worker's: cassette-prefetch.ts). */
  snapshot(): TurnIndexSnapshot {
    if (this.#held.size > 0) throw new Error('an index holding lines in memory has no snapshot');
    return {
      keys: this.#keys.snapshot(),
      files: this.#sources.map((source) => source.file),
      columns: this.#columns,
      hashes: this.#hashes,
      otherHashes: this.#otherHashes,
    };
  }

  /** The index a snapshot describes, its lines read from the sources given for its files. */
  static restore(snapshot: TurnIndexSnapshot, sourceOf: (file: string) => CassetteSource): TurnIndex {
    const index = new TurnIndex();
    index.#keys = TurnKeys.restore(snapshot.keys);
    index.#sources = snapshot.files.map(sourceOf);
    index.#columns = snapshot.columns;
    const { buffer, byteOffset, byteLength } = snapshot.hashes;
    index.#hashes = Buffer.from(buffer, byteOffset, byteLength);
    index.#otherHashes = snapshot.otherHashes;
    return index;
  }

  /** Index a line read from `source` at `bytes` (`written`: its text, when it is the line as written: CheckedLine). */
  addFromFile(
    source: CassetteSource,
    line: CassetteLine,
    lineNumber: number,
    bytes: LineBytes,
    written: string | null,
  ): void {
    if (this.#sources.at(-1) !== source) this.#sources.push(source);
    const row = this.#rowOf(line);
    if (this.#held.size > 0) this.#held.delete(row);
    this.#source[row] = this.#sources.length;
    this.#offset[row] = bytes.offset;
    this.#length[row] = bytes.length;
    this.#lineNumber[row] = lineNumber;
    const span = written === null ? null : responseSpan(line, written, bytes.length, this.#afterResponse);
    this.#responseAt[row] = span === null ? 0 : span.at;
    this.#responseTail[row] = span === null ? 0 : span.tail;
  }

  /** Index a line given in memory. */
  addHeld(located: LocatedLine): void {
    const row = this.#rowOf(located.line);
    this.#source[row] = 0;
    this.#held.set(row, located);
  }

  /** The row recorded for a key: for its exact trial, else the `trial: "*"` one; undefined when neither is. */
  find(key: TurnKeyFields): number | undefined {
    return this.#keys.find(key);
  }

  /** Was a `request_hash` recorded for this row? */
  hasRequestHash(row: number): boolean {
    return this.#hashKind[row] !== 0;
  }

  /**
   * Is `hash` the row's recorded `request_hash`, without reading its line?
   * Compared with the stored bytes as they are: every replayed turn and
   * every pre-flight check asks, and making the recorded text for each was
   * two strings per question.
   */
  isRequestHash(row: number, hash: string): boolean {
    const kind = this.#hashKind[row];
    if (kind === 2) return this.#otherHashes.get(row) === hash;
    if (kind !== 1 || hash.length !== SHA256_TEXT_LENGTH || !hash.startsWith('sha256:')) return false;
    const hashes = this.#hashes;
    for (let index = 0, at = row * 32; index < 32; index += 1, at += 1) {
      const byte = hashes[at]!;
      const high = hash.charCodeAt(7 + 2 * index);
      const low = hash.charCodeAt(8 + 2 * index);
      if (high !== HEX_DIGITS[byte >> 4] || low !== HEX_DIGITS[byte & 15]) return false;
    }
    return true;
  }

  /**
   * The row's line, read from its file and checked again by `check` (the
   * file may have changed since it was indexed); an Error naming file:line
   * when it is no longer a good cassette line.
   */
  line(row: number, check: LineCheck): LocatedLine {
    const source = this.#source[row]!;
    if (source === 0) return this.#held.get(row)!;
    const cassette = this.#sources[source - 1]!;
    const { file } = cassette;
    const lineNumber = this.#lineNumber[row]!;
    const text = cassette.text(this.#offset[row]!, this.#length[row]!);
    const checked = text === null ? null : check(text, file, lineNumber);
    if (checked !== null && 'line' in checked) return { line: checked.line, file, lineNumber };
    throw new Error(`${file}:${lineNumber}: the cassette changed while the run read it; run again once it is written`);
  }

  /**
   * The text of the row's `response` value alone, read from its file; null
   * when the row has none to read alone (a held line, a recorded error, a
   * line written otherwise than JSON.stringify writes) or it cannot be read
   * whole. The caller parses and checks it, and reads the whole `line` when
   * that fails.
   */
  responseText(row: number): string | null {
    const at = this.#responseAt[row]!;
    const source = this.#source[row]!;
    if (at === 0 || source === 0) return null;
    const length = this.#length[row]! - at - this.#responseTail[row]!;
    return this.#sources[source - 1]!.text(this.#offset[row]! + at, length);
  }

  /**
   * Store what `requestHash` makes — `sha256:` and 64 lowercase hex digits
   * — as the row's 32 bytes; false for any other text (kept as it is).
   * Decoded and checked in one pass: a regular expression, a slice and
   * Buffer's hex decoder were ~1 µs a line of a worker's read.
   */
  #storeSha256(row: number, hash: string): boolean {
    if (hash.length !== SHA256_TEXT_LENGTH || !hash.startsWith('sha256:')) return false;
    const hashes = this.#hashes;
    for (let index = 0, at = row * 32; index < 32; index += 1, at += 1) {
      const high = hash.charCodeAt(7 + 2 * index);
      const low = hash.charCodeAt(8 + 2 * index);
      const value = high < 128 && low < 128 ? (HEX_VALUES[high]! << 4) | HEX_VALUES[low]! : -1;
      if (value < 0) return false;
      hashes[at] = value;
    }
    return true;
  }

  /** The row of a line's key (a new one, or the one it replaces), its request hash recorded. */
  #rowOf(line: CassetteLine): number {
    const row = this.#keys.slotOf(line.key);
    if (row === this.#source.length) {
      this.#columns = grown(this.#columns, row * 2);
      const hashes = Buffer.allocUnsafe(row * 2 * 32);
      this.#hashes.copy(hashes);
      this.#hashes = hashes;
    }
    if (this.#otherHashes.size > 0) this.#otherHashes.delete(row);
    const hash = line.request_hash;
    if (hash !== undefined && this.#storeSha256(row, hash)) this.#hashKind[row] = 1;
    else if (hash !== undefined) {
      this.#otherHashes.set(row, hash);
      this.#hashKind[row] = 2;
    } else this.#hashKind[row] = 0;
    return row;
  }
}

/**
 * Where a line's `response` value is in its bytes: how many come before it
 * and after it; null when replay must read the whole line. Only for a line
 * as written (`text` is its JSON, which the structural check took).
 *
 * Why: a trial uses only the response of its line, and parsing the whole
 * ~680-byte line for it (key, three request hashes, label) was ~60 ms of a
 * 10,000-task replay's main thread, and most of its garbage. Found cheaply
 * (a worker reads every line, and a 200,000-line cassette's pre-flight
 * waits for it): the value starts after the line's first `response":` and
 * ends where the keys after it begin, which are found by writing them
 * again: they must end the text exactly. Sound because every object of a
 * line the structural check took has only keys its schema names, and none
 * but the line's own is or ends in `response`
 * (test/providers/cassette-line-shape.test.ts holds the schema to it), so
 * that text is the line's own key; and because whoever reads the span
 * parses it as one JSON value, which fails unless it is that value whole
 * (ReplayProvider then reads the whole line): so a line with the key twice
 * is read whole, as JSON.parse keeps the last. A line written otherwise
 * (`"response" :`, spaces or other escapes after the response) is read
 * whole too, as are lines whose parts before or after the response exceed
 * the two 16-bit counts.
 */
export function responseSpan(
  line: CassetteLine,
  text: string,
  byteLength: number,
  memo: AfterResponseMemo = { last: null },
): { at: number; tail: number } | null {
  if (line.response === undefined) return null;
  // Searched without its opening quote: a pattern starting with one is slow to find in JSON.
  const key = text.indexOf(RESPONSE_KEY);
  if (key < 1 || text.charCodeAt(key - 1) !== QUOTE) return null;
  const start = key + RESPONSE_KEY.length;
  const after = keysAfterResponse(line, memo);
  if (text.length - after.length <= start || !text.endsWith(after)) return null;
  let at = start;
  let tail = after.length;
  // Offsets count bytes; a line of one-byte characters only has as many bytes as characters.
  if (text.length !== byteLength) {
    if (Buffer.byteLength(text) !== byteLength) return null;
    at = Buffer.byteLength(text.slice(0, start));
    tail = Buffer.byteLength(after);
  }
  return at > 0xffff || tail > 0xffff ? null : { at, tail };
}

/**
 * What `keysAfterResponse` wrote last: the names and values after the
 * response, in order, and their text. One per index, given to each
 * `responseSpan` of the lines it adds.
 */
export interface AfterResponseMemo {
  last: { entries: unknown[]; text: string } | null;
}

/**
 * The keys after a line's response, as JSON.stringify writes them, then the
 * line's closing brace. A cassette's lines mostly end alike (a recorder's
 * one `label`): the text of the last line (`memo`) is reused when this
 * line's keys after the response are the same, with the same string (or
 * other primitive) values, rather than written again for every line a
 * worker reads (~1 µs a line).
 */
function keysAfterResponse(line: CassetteLine, memo: AfterResponseMemo): string {
  const names = Object.keys(line);
  const from = names.lastIndexOf('response') + 1;
  const { last } = memo;
  let same = last !== null && last.entries.length === 2 * (names.length - from);
  for (let index = from, at = 0; same && index < names.length; index += 1, at += 2) {
    const value: unknown = line[names[index] as keyof CassetteLine];
    same = last!.entries[at] === names[index] && last!.entries[at + 1] === value && !isObject(value);
  }
  if (same) return last!.text;
  let text = '}';
  const entries: unknown[] = [];
  for (let index = names.length - 1; index >= from; index -= 1) {
    const value: unknown = line[names[index] as keyof CassetteLine];
    text = `,${JSON.stringify(names[index])}:${JSON.stringify(value)}${text}`;
    entries.unshift(names[index], value);
  }
  memo.last = { entries, text };
  return text;
}

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null;

const RESPONSE_KEY = 'response":';
const QUOTE = 0x22;

const SHA256_TEXT_LENGTH = 'sha256:'.length + 64;
/** The character codes of the lowercase hex digits, by value. */
const HEX_DIGITS = Uint16Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
/** The value of each lowercase hex digit by its character code; -1 for any other character below 128. */
const HEX_VALUES = Int8Array.from({ length: 128 }, (_, code) => '0123456789abcdef'.indexOf(String.fromCharCode(code)));
