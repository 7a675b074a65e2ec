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
import { ConfigError, TrialRecord, jsonlLines, trialIdentity } from '../spec/index.ts';
import { runFile, temporaryName, writeError } from './files.ts';
import { isTrialRecordShape } from '../spec/index.ts';
import { trialLine } from './graded-tail.ts';

const NEWLINE = 0x0a;
/** The appender's first batch buffer: 64 replayed trials of ~3 KB fit; it grows for larger lines. */
const INITIAL_BATCH_BYTES = 256 * 1024;

/** One line of `trials.jsonl` as text: `complete` is false for a last line with no newline (maybe torn by a crash). */
export interface TrialLine {
  text: string;
  /** 1-based line number, for errors. */
  line: number;
  complete: boolean;
}

/**
 * Stream the lines of a run's `trials.jsonl` in file order, never the whole
 * file in memory (`jsonlLines`). A missing file is a ConfigError, or no
 * lines with `allowMissing`.
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
  const fd = openSync(file, 'r');
  try {
    for (const { text, line, complete } of jsonlLines((into, at, position) =>
      readSync(fd, into, at, into.length - at, position),
    ))
      yield { text, line, complete };
  } finally {
    closeSync(fd);
  }
}

/** A trial record with its 1-based line number in `trials.jsonl` (for messages that name the line). */
export interface NumberedTrial {
  record: TrialRecord;
  line: number;
}

/**
 * Stream the trial records of a run, one at a time, in file order (never
 * all in memory). A torn last line — bytes after the last newline that are
 * not a whole record, left by a crash mid-write — is skipped (a whole record
 * whose newline was never written is kept); any other bad line is a
 * ConfigError naming file and line. So is a second line with the identity
 * of an earlier one (provider, model, domain, surface, task, trial): two
 * writers on one folder, or a hand-made copy, would count a trial twice
 * (`compare` would pair the duplicates); the message names both lines. A
 * missing `trials.jsonl` is a ConfigError, or no records with
 * `allowMissing` (a run killed before its first trial).
 *
 * Each line is `JSON.parse`d and checked with `isTrialRecordShape`, the
 * structural check derived from the schema (src/spec/shape-check.ts); only
 * a line that fails it goes through the zod schema
 * (which fills defaults of older records, or names the bad field).
 */
export async function* readNumberedTrials(
  runDir: string,
  options: { allowMissing?: boolean } = {},
): AsyncGenerator<NumberedTrial> {
  const file = runFile(runDir, 'trials');
  const duplicates = createDuplicateCheck(file);
  for await (const { text, line, complete } of readTrialLines(runDir, options)) {
    let record: TrialRecord | null;
    try {
      record = parseTrialLine(text, file, line);
    } catch (error) {
      if (complete) throw error;
      return;
    }
    if (record === null) continue;
    duplicates.check(record, line);
    yield { record, line };
  }
}

/** `readNumberedTrials` without the line numbers. */
export async function* readTrials(
  runDir: string,
  options: { allowMissing?: boolean } = {},
): AsyncGenerator<TrialRecord> {
  for await (const { record } of readNumberedTrials(runDir, options)) yield record;
}

/**
 * Remembers the identity of every trial line seen and throws a ConfigError
 * at the first one seen before, naming both lines. Every reader of
 * `trials.jsonl` uses it (readNumberedTrials, and re-scoring, which parses
 * lines its own way).
 */
export function createDuplicateCheck(file: string): { check(record: TrialRecord, line: number): void } {
  const seen = new Map<string, number>();
  return {
    check(record, line) {
      const identity = trialIdentity(record);
      const first = seen.get(identity);
      if (first === undefined) {
        seen.set(identity, line);
        return;
      }
      throw new ConfigError({
        file,
        line,
        message: `duplicate trial: ${record.provider}:${record.model} ${record.domain}/${record.task} on ${record.surface}, trial ${record.trial} is already on line ${first}`,
        expected:
          'each trial once (two writers on one run folder, or a copied line?); keep one of the lines, or run again into a new folder',
      });
    },
  };
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

/** Where one line of `trials.jsonl` is: its first byte and its length in bytes, the newline left out. */
export interface TrialLinePlace {
  readonly at: number;
  readonly bytes: number;
}

/**
 * The lines at `places` in a run's `trials.jsonl` (one positioned read
 * each, the file opened once), in the order asked. A place is what
 * `TrialAppender.append` returned while the run wrote the file.
 */
export function readTrialLinesAt(runDir: string, places: readonly TrialLinePlace[]): string[] {
  if (places.length === 0) return [];
  const file = runFile(runDir, 'trials');
  const fd = openSync(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(64 * 1024);
    return places.map(({ at, bytes }) => {
      if (bytes > buffer.length) buffer = Buffer.allocUnsafe(bytes);
      let read = 0;
      while (read < bytes) {
        const got = readSync(fd, buffer, read, bytes - read, at + read);
        if (got === 0) throw new Error(`${file}: no line of ${bytes} bytes at byte ${at} (the file is shorter)`);
        read += got;
      }
      return buffer.toString('utf8', 0, bytes);
    });
  } finally {
    closeSync(fd);
  }
}

/** How the appender writes bytes to its file descriptor; a seam for tests that fail a write (a full disk). */
export type AppendWrite = (fd: number, text: string | Buffer, offset?: number) => number;

const defaultWrite: AppendWrite = (fd, text, offset) =>
  typeof text === 'string' ? writeSync(fd, text) : writeSync(fd, text, offset);

/** Options of a TrialAppender. */
export interface TrialAppenderOptions {
  /** How bytes are written (a test seam: a write that fails like a full disk). */
  write?: AppendWrite;
  /**
   * Lines gathered before a write; default 1 (each `append` writes its line
   * at once). Above 1 the lines also go out at the next turn of the event
   * loop (`setImmediate`), whichever comes first.
   */
  batchLines?: number;
  /** Told of a failed write that happened outside `append` (a batch written at the next turn). */
  onFailure?(error: unknown): void;
}

/**
 * Appends finished trials to `trials.jsonl`, in append mode, a batch of
 * whole lines per write, so a crash can tear at most the batch being
 * written (`repairTrials` cuts the torn part back to the last whole line).
 *
 * Semantics:
 * - with `batchLines: 1` (the default) `append` returns only once the line
 *   is in the file (a caller may count it as saved: resume skips it);
 * - with `batchLines: n > 1` a line is in the file once n lines have
 *   gathered or the event loop has turned once, whichever is first; so a
 *   kill loses at most the trials finished in the current turn of the event
 *   loop (at most n) besides those in flight. `flush` writes them at once;
 *   `written` counts the lines known to be in the file.
 * - a write that fails throws a `RunFolderWriteError` (full disk, read-only
 *   or removed folder) from `append` or `flush`, or is handed to `onFailure`
 *   when it happened at the next turn; the file may then end in part of a
 *   line, which `trim` (repairTrials) cuts back to the last whole line.
 *   After a failed write nothing more is written.
 */
export class TrialAppender {
  readonly #fd: number;
  readonly #runDir: string;
  readonly #file: string;
  readonly #write: AppendWrite;
  readonly #batchLines: number;
  readonly #onFailure: ((error: unknown) => void) | undefined;
  /**
   * The gathered lines, already UTF-8 (`#used` bytes of `#batch`, `#lines`
   * lines). Each line is encoded as it is appended, so its string dies at
   * once: kept as strings until the write, a batch's lines outlived the
   * young generation (a replay's GC work) and were then joined into one
   * string of ~200 KB, copied once more, in the large-object space.
   */
  #batch = Buffer.allocUnsafe(INITIAL_BATCH_BYTES);
  #used = 0;
  #lines = 0;
  #scheduled: NodeJS.Immediate | null = null;
  #failed = false;
  #written = 0;
  /** Where the next line will start: the file's size when opened (append mode), plus every line appended since. */
  #end: number;

  constructor(runDir: string, options: TrialAppenderOptions = {}) {
    this.#runDir = runDir;
    this.#file = runFile(runDir, 'trials');
    this.#write = options.write ?? defaultWrite;
    this.#batchLines = Math.max(1, options.batchLines ?? 1);
    this.#onFailure = options.onFailure;
    try {
      this.#fd = openSync(this.#file, 'a');
      this.#end = fstatSync(this.#fd).size;
    } catch (error) {
      throw writeError(this.#file, error);
    }
  }

  /** Lines known to be in the file. */
  get written(): number {
    return this.#written;
  }

  /**
   * Append one trial; returns where its line (`trialLine(record)`) is in the
   * file, once written (`readTrialLinesAt`).
   */
  append(record: TrialRecord): TrialLinePlace {
    if (this.#failed) throw new Error(`${this.#file}: append after a failed write`);
    const place = this.#gather(trialLine(record));
    if (this.#lines >= this.#batchLines) this.flush();
    else
      this.#scheduled ??= setImmediate(() => {
        this.#scheduled = null;
        try {
          this.flush();
        } catch (error) {
          this.#onFailure?.(error);
        }
      });
    return place;
  }

  /** Add one line (and its newline) to the batch, growing it when the line may not fit; returns its place. */
  #gather(line: string): TrialLinePlace {
    // At most 3 bytes per UTF-16 unit, plus the newline.
    const room = this.#used + line.length * 3 + 1;
    if (room > this.#batch.length) {
      const grown = Buffer.allocUnsafe(Math.max(room, this.#batch.length * 2));
      this.#batch.copy(grown, 0, 0, this.#used);
      this.#batch = grown;
    }
    const bytes = this.#batch.write(line, this.#used);
    this.#used += bytes;
    this.#batch[this.#used++] = NEWLINE;
    this.#lines += 1;
    const place = { at: this.#end, bytes };
    this.#end += bytes + 1;
    return place;
  }

  /** Write the gathered lines now. */
  flush(): void {
    if (this.#scheduled !== null) {
      clearImmediate(this.#scheduled);
      this.#scheduled = null;
    }
    if (this.#lines === 0 || this.#failed) return;
    const lines = this.#lines;
    const bytes = this.#batch.subarray(0, this.#used);
    try {
      // A short write is rare on a local file, but finishing it keeps lines whole.
      let written = 0;
      while (written < bytes.length) written += this.#write(this.#fd, bytes, written);
    } catch (error) {
      this.#failed = true;
      throw writeError(this.#file, error);
    } finally {
      // Nothing is written twice: after a failed write nothing more is written at all.
      this.#used = 0;
      this.#lines = 0;
      // A batch grown for a few huge lines is not kept for the rest of the run.
      if (this.#batch.length > 4 * INITIAL_BATCH_BYTES) this.#batch = Buffer.allocUnsafe(INITIAL_BATCH_BYTES);
    }
    this.#written += lines;
  }

  /** Cut a partial last line left by a failed write; returns the bytes cut. */
  trim(): number {
    return repairTrials(this.#runDir);
  }

  /** Write what is gathered (unless a write failed), then close the file. */
  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.#fd);
    }
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
export async function replaceTrials(
  runDir: string,
  lines: AsyncIterable<string>,
  options: { into?: string } = {},
): Promise<void> {
  const file = runFile(runDir, 'trials');
  // `into`: a transaction's staged file, installed by its commit (transaction.ts) rather than renamed here.
  const temporary = options.into ?? temporaryName(file);
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
    throw writeError(file, error);
  }
  closeSync(fd);
  if (options.into === undefined) renameSync(temporary, file);
}
