// Never zod, nor the spec's index: the cassette worker reads cassettes through this (cassette-prefetch.ts).
import { closeSync, fstatSync, readSync } from 'node:fs';
import { readFailure } from './cassette-file.ts';

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

  /** An open file (`fd`), or its bytes as another thread read them (cassette-prefetch.ts), held. */
  constructor(file: string, from: number | Buffer) {
    this.file = file;
    if (typeof from === 'number') {
      this.#fd = from;
      descriptors.register(this, from, this);
    } else {
      this.#fd = null;
      this.#bytes = from;
    }
  }

  /**
   * Hold the file in memory (and close it) when it is at most `holdUpTo`
   * bytes (`size`: its size when it was indexed, else now); its bytes, or
   * null when it stays open to be read from. Each in a buffer of its own,
   * so that a worker can move it to another thread.
   */
  settle(size: number | undefined, holdUpTo = HOLD_CASSETTE_BYTES): Buffer | null {
    if (this.#fd === null) return this.#bytes;
    try {
      size ??= fstatSync(this.#fd).size;
      if (size > holdUpTo) return null;
      const bytes = Buffer.allocUnsafeSlow(size);
      const read = readFully(this.#fd, bytes, size, 0);
      this.close();
      this.#bytes = bytes.subarray(0, read);
    } catch (error) {
      throw readFailure(this.file, error);
    }
    return this.#bytes;
  }

  /** Close the descriptor now (the cassette turned out bad, so no provider will read it, or it is held). */
  close(): void {
    if (this.#fd === null) return;
    descriptors.unregister(this);
    closeSync(this.#fd);
    this.#fd = null;
  }

  /** The text of `length` bytes at `offset`; null when the file no longer holds them all. */
  text(offset: number, length: number): string | null {
    if (this.#bytes !== null)
      return offset + length <= this.#bytes.length ? this.#bytes.toString('utf8', offset, offset + length) : null;
    if (this.#fd === null) return null;
    if (length > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(length);
    return readFully(this.#fd, this.#scratch, length, offset) === length
      ? this.#scratch.toString('utf8', 0, length)
      : null;
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
