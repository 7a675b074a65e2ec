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
 * An open cassette file lines are read back from. The descriptor stays open
 * while a provider may read from it, and is closed when this object is
 * collected — a run keeps its providers to its end; a library caller that
 * drops them gets the descriptor back at the next collection.
 */
export class CassetteSource {
  readonly file: string;
  readonly #fd: number;
  #scratch = Buffer.allocUnsafe(64 * 1024);

  constructor(file: string, fd: number) {
    this.file = file;
    this.#fd = fd;
    descriptors.register(this, fd, this);
  }

  /** Close the descriptor now (the cassette turned out bad, so no provider will read it). */
  close(): void {
    descriptors.unregister(this);
    closeSync(this.#fd);
  }

  /** The line at `offset`, parsed; an Error naming file:line if it is no longer a good cassette line. */
  read(offset: number, length: number, lineNumber: number): CassetteLine {
    if (length > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const got = readSync(this.#fd, this.#scratch, read, length - read, offset + read);
      if (got === 0) break;
      read += got;
    }
    const checked =
      read === length ? checkCassetteLine(this.#scratch.toString('utf8', 0, read), this.file, lineNumber) : null;
    if (checked !== null && 'line' in checked) return checked.line;
    throw new Error(
      `${this.file}:${lineNumber}: the cassette changed while the run read it; run again once it is written`,
    );
  }
}
