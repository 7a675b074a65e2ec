import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { ConfigError, TrialRecord } from '../spec/index.ts';
import { runFile } from './files.ts';
import { isTrialRecordShape } from '../spec/index.ts';
import { trialLine } from './graded-tail.ts';

/** Bytes read per chunk; lines are split in the buffer, so a line is decoded once. */
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** One line of `trials.jsonl` as text: `complete` is false for a last line with no newline (maybe torn by a crash). */
export interface TrialLine {
  text: string;
  /** 1-based line number, for errors. */
  line: number;
  complete: boolean;
}

/**
 * Stream the lines of a run's `trials.jsonl` in file order (never the whole
 * file in memory): 1 MB chunks split on newlines in the buffer, so each line
 * is decoded once. A missing file is a ConfigError, or no lines with
 * `allowMissing`.
 */
export async function* readTrialLines(
  runDir: string,
  options: { allowMissing?: boolean } = {},
): AsyncGenerator<TrialLine> {
  const file = runFile(runDir, 'trials');
  if (!existsSync(file)) {
    if (options.allowMissing) return;
    throw new ConfigError({
      file,
      message: 'no trials.jsonl: not a run folder, or the run has not started',
      expected: 'a folder written by `toolmark run`',
    });
  }
  const handle = await open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let filled = 0;
    let line = 0;
    for (;;) {
      if (filled === buffer.length) {
        // A line longer than the buffer: grow it rather than split the line.
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      const end = filled + bytesRead;
      let start = 0;
      for (
        let newline = buffer.indexOf(NEWLINE, start);
        newline !== -1 && newline < end;
        newline = buffer.indexOf(NEWLINE, start)
      ) {
        line += 1;
        yield { text: buffer.toString('utf8', start, newline), line, complete: true };
        start = newline + 1;
      }
      buffer.copy(buffer, 0, start, end);
      filled = end - start;
    }
    if (filled > 0) yield { text: buffer.toString('utf8', 0, filled), line: line + 1, complete: false };
  } finally {
    await handle.close();
  }
}

/**
 * Stream the trial records of a run, one at a time, in file order (never
 * all in memory). A torn last line — bytes after the last newline that are
 * not a whole record, left by a crash mid-write — is skipped (a whole record
 * whose newline was never written is kept); any other bad line is a
 * ConfigError naming file and line. A missing `trials.jsonl` is a
 * ConfigError, or no records with `allowMissing` (a run killed before its
 * first trial).
 *
 * Each line is `JSON.parse`d and checked with `isTrialRecordShape`, the
 * structural check derived from the schema (src/spec/shape-check.ts); only
 * a line that fails it goes through the zod schema
 * (which fills defaults of older records, or names the bad field).
 */
export async function* readTrials(
  runDir: string,
  options: { allowMissing?: boolean } = {},
): AsyncGenerator<TrialRecord> {
  const file = runFile(runDir, 'trials');
  for await (const { text, line, complete } of readTrialLines(runDir, options)) {
    let record: TrialRecord | null;
    try {
      record = parseTrialLine(text, file, line);
    } catch (error) {
      if (complete) throw error;
      return;
    }
    if (record !== null) yield record;
  }
}

/** One line of trials.jsonl: a record, null for a blank line, or a ConfigError. */
export function parseTrialLine(text: string, file: string, line: number): TrialRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return null;
    throw new ConfigError({
      file,
      line,
      message: `not JSON: ${(error as Error).message}`,
      expected: 'one TrialRecord per line',
    });
  }
  if (isTrialRecordShape(value)) return value;
  const parsed = TrialRecord.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigError({
    file,
    line,
    field: issue.path.map(String).join('.') || undefined,
    message: `invalid TrialRecord: ${issue.message}`,
    expected: 'a TrialRecord (src/spec/trial.ts)',
  });
}

/**
 * Drop a torn last line (a crash mid-write leaves bytes after the last
 * newline) so the next append starts on a clean line. Returns how many bytes
 * were dropped.
 */
export function repairTrials(runDir: string): number {
  const file = runFile(runDir, 'trials');
  if (!existsSync(file)) return 0;
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    // Read backwards in chunks to the last newline; lines are small, the file may not be.
    let end = size;
    const chunk = Buffer.alloc(64 * 1024);
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const read = readSync(fd, chunk, 0, end - start, start);
      const newline = chunk.subarray(0, read).lastIndexOf(NEWLINE);
      if (newline !== -1) {
        const keep = start + newline + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends finished trials to `trials.jsonl`: one write per line, in append
 * mode, so a crash can tear at most the line being written.
 */
export class TrialAppender {
  readonly #fd: number;

  constructor(runDir: string) {
    this.#fd = openSync(runFile(runDir, 'trials'), 'a');
  }

  append(record: TrialRecord): void {
    const text = `${trialLine(record)}\n`;
    // Written as a string (no intermediate Buffer); a short write is rare on a local file, but finishing it keeps lines whole.
    const written = writeSync(this.#fd, text);
    if (written < Buffer.byteLength(text)) this.#finish(Buffer.from(text, 'utf8'), written);
  }

  #finish(bytes: Buffer, written: number): void {
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written);
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** Characters gathered before each write of `replaceTrials`. */
const REWRITE_BATCH = 1 << 20;

/**
 * Replace a run's `trials.jsonl` with `lines` (each without its newline),
 * whole or not at all: they go to a temporary file in the run folder, which
 * is flushed to disk and renamed over the old one only once every line is
 * written. An error (or a crash) leaves the old file as it was.
 */
export async function replaceTrials(runDir: string, lines: AsyncIterable<string>): Promise<void> {
  const file = runFile(runDir, 'trials');
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    let batch: string[] = [];
    let size = 0;
    const flush = () => {
      const bytes = Buffer.from(batch.join(''), 'utf8');
      for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
      batch = [];
      size = 0;
    };
    for await (const line of lines) {
      batch.push(line, '\n');
      size += line.length + 1;
      if (size >= REWRITE_BATCH) flush();
    }
    flush();
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
}
