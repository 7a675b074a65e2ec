import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError, Manifest, TrialRecord } from '../spec/index.ts';
import { trialIdentity } from './plan.ts';

/** The files of a run folder (`results/<run-id>/`). */
export const RUN_FILES = { manifest: 'manifest.json', trials: 'trials.jsonl', summary: 'summary.json' } as const;

/** `2026-11-29T22-40-00Z-ab12`: sortable, safe in file names, unique enough for parallel CI jobs. */
export function createRunId(now: Date = new Date(), random: () => string = () => randomBytes(2).toString('hex')): string {
  return `${now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}-${random()}`;
}

/** A run id names one folder under the results folder; `../x` or `a/b` would write somewhere else. Returns the id. */
export function checkRunId(id: string, flag = '--run-id'): string {
  if (/^[A-Za-z0-9._-]+$/.test(id) && !/^\.+$/.test(id)) return id;
  throw new ConfigError({ file: flag, field: id, message: 'not a run id', expected: 'one folder name: letters, digits, dot, dash or underscore' });
}

/** Write a file whole or not at all (temp file + rename), so a crash never leaves half a manifest. */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

export function writeManifest(runDir: string, manifest: Manifest): void {
  writeFileAtomic(path.join(runDir, RUN_FILES.manifest), `${JSON.stringify(Manifest.parse(manifest), null, 2)}\n`);
}

export function readManifest(runDir: string): Manifest {
  const file = path.join(runDir, RUN_FILES.manifest);
  if (!existsSync(file)) throw new ConfigError({ file, message: 'not a run folder: manifest.json is missing', expected: 'a folder written by `toolmark run`' });
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError({ file, message: `invalid JSON: ${(error as Error).message}` });
  }
  const parsed = Manifest.safeParse(value);
  if (!parsed.success) throw new ConfigError({ file, field: parsed.error.issues[0]?.path.join('.'), message: parsed.error.issues[0]?.message ?? 'invalid manifest' });
  return parsed.data;
}

/**
 * Drop a torn last line (a crash mid-write leaves bytes after the last
 * newline) so the next append starts on a clean line. Returns how many bytes
 * were dropped.
 */
export function repairTrials(file: string): number {
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
      const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
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
 * Stream the trial records of a run, one at a time (never all in memory). A
 * torn last line is skipped; any other bad line is a ConfigError with
 * file:line.
 */
export async function* readTrials(file: string): AsyncGenerator<TrialRecord> {
  if (!existsSync(file)) return;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let lineNumber = 0;
  let pending: { text: string; line: number } | null = null;
  for await (const text of lines) {
    lineNumber += 1;
    if (pending) yield parseTrialLine(pending.text, file, pending.line);
    pending = text.trim() === '' ? null : { text, line: lineNumber };
  }
  if (!pending) return;
  // The last line is torn when the file does not end with a newline and the line does not parse.
  let last: TrialRecord;
  try {
    last = parseTrialLine(pending.text, file, pending.line);
  } catch (error) {
    if (endsWithNewline(file)) throw error;
    return;
  }
  yield last;
}

function endsWithNewline(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

function parseTrialLine(text: string, file: string, line: number): TrialRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({ file, line, message: `invalid JSON in trials: ${(error as Error).message}` });
  }
  const parsed = TrialRecord.safeParse(value);
  if (!parsed.success) throw new ConfigError({ file, line, field: parsed.error.issues[0]?.path.join('.'), message: parsed.error.issues[0]?.message ?? 'invalid trial record' });
  return parsed.data;
}

/** Identities of the trials already in a run (for resume and merge). */
export async function finishedIdentities(file: string): Promise<Set<string>> {
  const done = new Set<string>();
  for await (const record of readTrials(file)) done.add(trialIdentity(record));
  return done;
}

/**
 * Appends finished trials to `trials.jsonl`: one write per line, in append
 * mode, so a crash can tear at most the line being written.
 */
export class TrialAppender {
  readonly #fd: number;

  constructor(file: string) {
    this.#fd = openSync(file, 'a');
  }

  append(record: TrialRecord): void {
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    let written = writeSync(this.#fd, bytes);
    // A short write is rare on a local file, but finishing it keeps lines whole.
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
