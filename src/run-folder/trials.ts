import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { ConfigError, TrialRecord } from '../spec/index.ts';
import { runFile } from './files.ts';
import { isTrialRecordShape } from './trial-shape.ts';

/** Bytes read per chunk; lines are split in the buffer, so a line is decoded once. */
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Stream the trial records of a run, one at a time, in file order (never
 * all in memory). A torn last line — bytes after the last newline that are
 * not a whole record, left by a crash mid-write — is skipped; any other bad
 * line is a ConfigError naming file and line. A missing `trials.jsonl` is a
 * ConfigError, or no records with `allowMissing` (a run killed before its
 * first trial).
 *
 * Each line is `JSON.parse`d and checked with the cheap structural check of
 * trial-shape.ts; only a line that fails it goes through the zod schema
 * (which fills defaults of older records, or names the bad field).
 */
export async function* readTrials(runDir: string, options: { allowMissing?: boolean } = {}): AsyncGenerator<TrialRecord> {
  const file = runFile(runDir, 'trials');
  if (!existsSync(file)) {
    if (options.allowMissing) return;
    throw new ConfigError({ file, message: 'no trials.jsonl: not a run folder, or the run has not started', expected: 'a folder written by `toolmark run`' });
  }
  const handle = await open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let filled = 0;
    let lineNumber = 0;
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
      for (let newline = buffer.indexOf(NEWLINE, start); newline !== -1 && newline < end; newline = buffer.indexOf(NEWLINE, start)) {
        lineNumber += 1;
        const record = parseTrialLine(buffer.toString('utf8', start, newline), file, lineNumber);
        start = newline + 1;
        if (record !== null) yield record;
      }
      buffer.copy(buffer, 0, start, end);
      filled = end - start;
    }
    if (filled === 0) return;
    // Unterminated last line: a whole record whose newline was never written is kept; anything else is torn.
    let record: TrialRecord | null;
    try {
      record = parseTrialLine(buffer.toString('utf8', 0, filled), file, lineNumber + 1);
    } catch {
      return;
    }
    if (record !== null) yield record;
  } finally {
    await handle.close();
  }
}

/** One line of trials.jsonl: a record, null for a blank line, or a ConfigError. */
export function parseTrialLine(text: string, file: string, line: number): TrialRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return null;
    throw new ConfigError({ file, line, message: `not JSON: ${(error as Error).message}`, expected: 'one TrialRecord per line' });
  }
  if (isTrialRecordShape(value)) return value;
  const parsed = TrialRecord.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigError({ file, line, field: issue.path.map(String).join('.') || undefined, message: `invalid TrialRecord: ${issue.message}`, expected: 'a TrialRecord (src/spec/trial.ts)' });
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
    const text = `${JSON.stringify(record)}\n`;
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
