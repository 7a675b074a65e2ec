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
 * line longer than the buffer grows it rather than being split. With
 * `jsonlLinesOf` (a file held in memory), the line splitter of the
 * cassette reader and the run folder's trial reader.
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
    for (const complete of newlineEnded(buffer, end, base, line)) {
      yield complete;
      start = complete.offset - base + complete.length + 1;
      line = complete.line;
    }
    buffer.copy(buffer, 0, start, end);
    base += start;
    filled = end - start;
  }
  if (filled > 0) yield unended(buffer, 0, filled, base, line);
}

/**
 * The lines of a JSONL file held in memory, split where they are: the same
 * lines, numbers and places as `jsonlLines` gives, without copying the
 * bytes into its chunk buffer first (a worker's read of a 13 MB cassette
 * copied all of it, ~30 ms).
 */
export function* jsonlLinesOf(bytes: Buffer): Generator<JsonlLine> {
  let start = 0;
  let line = 0;
  for (const complete of newlineEnded(bytes, bytes.length, 0, line)) {
    yield complete;
    start = complete.offset + complete.length + 1;
    line = complete.line;
  }
  if (start < bytes.length) yield unended(bytes, start, bytes.length, 0, line);
}

/** The newline-ended lines of buffer[0, end), buffer[0] being at file offset `base`, numbered after line `line`. */
function* newlineEnded(buffer: Buffer, end: number, base: number, line: number): Generator<JsonlLine> {
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
}

/** The last line, buffer[start, end), no newline ended. */
function unended(buffer: Buffer, start: number, end: number, base: number, line: number): JsonlLine {
  return {
    text: buffer.toString('utf8', start, end),
    line: line + 1,
    offset: base + start,
    length: end - start,
    complete: false,
  };
}
