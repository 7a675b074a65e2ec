import { closeSync, readSync } from 'node:fs';
import type { CassetteLine } from '../../src/spec/index.ts';
import { checkCassetteLine, type LineBytes, type LocatedLine } from './cassette-file.ts';

/**
 * The turns of one recorded model, by turn key, without the lines held in
 * memory.
 *
 * Why: a 100,000-task cassette is 200,000 lines and ~130 MB of JSON; held
 * as parsed objects it was ~190 MB of heap for the whole run (and every
 * full collection marked it). Every line is still read and checked once
 * when the cassette is opened (cassette-file.ts: a bad line stops the run
 * before anything is written); what stays is, per line, where its bytes
 * are in the file, its line number and its `request_hash` (32 bytes in one
 * buffer) — ~50 bytes a line. A line is read again, parsed and checked
 * when a trial uses it (one positioned read). Lines given in memory (tests,
 * hand-made providers) are kept as they are.
 */
export class TurnIndex {
  /** Turn key → row. Later rows replace earlier ones: re-recording by appending wins. */
  readonly #rows = new Map<string, number>();
  readonly #source: (CassetteSource | null)[] = [];
  readonly #offset: number[] = [];
  readonly #length: number[] = [];
  readonly #lineNumber: number[] = [];
  /** sha256 request hashes, 32 bytes a row (see #hashKind). */
  #hashes = Buffer.allocUnsafe(32 * 1024);
  /** Per row: 0 no hash, 1 sha256 in #hashes, 2 another text in #otherHashes. */
  #hashKind: number[] = [];
  readonly #otherHashes = new Map<number, string>();
  readonly #held = new Map<number, LocatedLine>();

  get size(): number {
    return this.#rows.size;
  }

  /** Index a line read from `source` at `bytes`. */
  addFromFile(source: CassetteSource, line: CassetteLine, lineNumber: number, bytes: LineBytes): void {
    const row = this.#addRow(line, source, lineNumber, bytes);
    this.#rows.set(turnKey(line.key), row);
  }

  /** Index a line given in memory. */
  addHeld(located: LocatedLine): void {
    const row = this.#addRow(located.line, null, located.lineNumber, { offset: 0, length: 0 });
    this.#held.set(row, located);
    this.#rows.set(turnKey(located.line.key), row);
  }

  /** The row recorded for a key, if any. */
  find(key: { domain: string; task: string; surface: string; trial: number | '*'; turn: number }): number | undefined {
    return this.#rows.get(turnKey(key));
  }

  /** The `request_hash` of a row, without reading its line. */
  requestHash(row: number): string | undefined {
    const kind = this.#hashKind[row];
    if (kind === 1) return `sha256:${this.#hashes.toString('hex', row * 32, row * 32 + 32)}`;
    return kind === 2 ? this.#otherHashes.get(row) : undefined;
  }

  /** The row's line, read from its file and checked again (the file may have changed since it was indexed). */
  line(row: number): LocatedLine {
    const held = this.#held.get(row);
    if (held) return held;
    const source = this.#source[row]!;
    const lineNumber = this.#lineNumber[row]!;
    const line = source.read(this.#offset[row]!, this.#length[row]!, lineNumber);
    return { line, file: source.file, lineNumber };
  }

  #addRow(line: CassetteLine, source: CassetteSource | null, lineNumber: number, bytes: LineBytes): number {
    const row = this.#source.length;
    this.#source.push(source);
    this.#offset.push(bytes.offset);
    this.#length.push(bytes.length);
    this.#lineNumber.push(lineNumber);
    const hash = line.request_hash;
    if (hash !== undefined && SHA256.test(hash)) {
      if ((row + 1) * 32 > this.#hashes.length) {
        const larger = Buffer.allocUnsafe(this.#hashes.length * 2);
        this.#hashes.copy(larger);
        this.#hashes = larger;
      }
      this.#hashes.write(hash.slice(7), row * 32, 'hex');
      this.#hashKind.push(1);
    } else if (hash !== undefined) {
      this.#otherHashes.set(row, hash);
      this.#hashKind.push(2);
    } else this.#hashKind.push(0);
    return row;
  }
}

const SHA256 = /^sha256:[0-9a-f]{64}$/;

function turnKey(key: { domain: string; task: string; surface: string; trial: number | '*'; turn: number }): string {
  return JSON.stringify([key.domain, key.task, key.surface, key.trial, key.turn]);
}

/** Closes a cassette's descriptor once nothing can read from it any more (its providers are gone). */
const descriptors = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to give back.
  }
});

/**
 * Cassettes up to this size are held in memory as bytes (outside the
 * JavaScript heap, so no collection walks them) and their lines are
 * decoded from there; larger ones are read back a line at a time. A
 * positioned read per turn cost ~5 µs (~0.1 s of a 10,000-task replay);
 * holding a 100,000-task cassette would add its ~130 MB to the peak.
 */
export const HOLD_CASSETTE_BYTES = 32 * 1024 * 1024;

/**
 * An open cassette file lines are read back from: from its bytes held in
 * memory when it is small (`HOLD_CASSETTE_BYTES`), else from the file. The
 * descriptor of a large one stays open while a provider may read from it,
 * and is closed when this object is collected — a run keeps its providers
 * to its end; a library caller that drops them gets the descriptor back at
 * the next collection.
 */
export class CassetteSource {
  readonly file: string;
  #fd: number | null;
  #bytes: Buffer | null = null;
  #scratch = Buffer.allocUnsafe(64 * 1024);

  constructor(file: string, fd: number) {
    this.file = file;
    this.#fd = fd;
    descriptors.register(this, fd, this);
  }

  /** Once the file is indexed: hold it in memory (and close it) when it is at most `holdUpTo` bytes. */
  settle(size: number, holdUpTo = HOLD_CASSETTE_BYTES): void {
    if (size > holdUpTo || this.#fd === null) return;
    const bytes = Buffer.allocUnsafe(size);
    const read = readFully(this.#fd, bytes, size, 0);
    this.close();
    this.#bytes = bytes.subarray(0, read);
  }

  /** Close the descriptor now (the cassette turned out bad, so no provider will read it, or it is held). */
  close(): void {
    if (this.#fd === null) return;
    descriptors.unregister(this);
    closeSync(this.#fd);
    this.#fd = null;
  }

  /** The line at `offset`, parsed; an Error naming file:line if it is no longer a good cassette line. */
  read(offset: number, length: number, lineNumber: number): CassetteLine {
    let text: string | null = null;
    if (this.#bytes !== null) {
      if (offset + length <= this.#bytes.length) text = this.#bytes.toString('utf8', offset, offset + length);
    } else if (this.#fd !== null) {
      if (length > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(length);
      if (readFully(this.#fd, this.#scratch, length, offset) === length)
        text = this.#scratch.toString('utf8', 0, length);
    }
    const checked = text === null ? null : checkCassetteLine(text, this.file, lineNumber);
    if (checked !== null && 'line' in checked) return checked.line;
    throw new Error(
      `${this.file}:${lineNumber}: the cassette changed while the run read it; run again once it is written`,
    );
  }
}

/** Read `length` bytes at `position` into `into` (fewer at the end of the file); returns how many. */
function readFully(fd: number, into: Buffer, length: number, position: number): number {
  let read = 0;
  while (read < length) {
    const got = readSync(fd, into, read, length - read, position + read);
    if (got === 0) break;
    read += got;
  }
  return read;
}
