/** Bytes read per chunk; lines are split in the buffer, so a line is decoded once. */
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** One line of a JSONL file (a cassette, a run's `trials.jsonl`). */
export interface JsonlLine {
  text: string;
  /** 1-based line number, for errors. */
  line: number;
  /** Where the line's bytes are in the file (its newline not included), to read it again later. */
  offset: number;
  length: number;
  /** False for a last line no newline ended (maybe torn by a crash). */
  complete: boolean;
}

/**
 * Read from file position `position` into `into` from index `at` up to its
 * end; the bytes read, 0 at the end of the file. The caller decides how a
 * failed read is reported.
 */
export type ReadAt = (into: Buffer, at: number, position: number) => number;

/**
 * The lines of a JSONL file, in order, never the whole file in memory: 1 MB
 * chunks split on newlines in the buffer, so each line is decoded once; a
 * line longer than the buffer grows it rather than being split. The one
 * line splitter of the cassette reader and the run folder's trial reader.
 */
export function* jsonlLines(read: ReadAt): Generator<JsonlLine> {
  let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let filled = 0;
  // File offset of buffer[0].
  let base = 0;
  let line = 0;
  for (;;) {
    if (filled === buffer.length) {
      const larger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(larger, 0, 0, filled);
      buffer = larger;
    }
    const bytesRead = read(buffer, filled, base + filled);
    if (bytesRead === 0) break;
    const end = filled + bytesRead;
    let start = 0;
    for (let newline = buffer.indexOf(NEWLINE, start); newline !== -1 && newline < end;) {
      line += 1;
      yield {
        text: buffer.toString('utf8', start, newline),
        line,
        offset: base + start,
        length: newline - start,
        complete: true,
      };
      start = newline + 1;
      newline = buffer.indexOf(NEWLINE, start);
    }
    buffer.copy(buffer, 0, start, end);
    base += start;
    filled = end - start;
  }
  if (filled > 0)
    yield { text: buffer.toString('utf8', 0, filled), line: line + 1, offset: base, length: filled, complete: false };
}
