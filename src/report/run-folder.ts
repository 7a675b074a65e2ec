import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { ConfigError, Manifest, Summary, TrialRecord } from '../spec/index.ts';

/** The files of a run folder (SPEC §3) that every report reads. */
export const RUN_FILES = { manifest: 'manifest.json', trials: 'trials.jsonl', summary: 'summary.json' } as const;

/** Fails with a ConfigError naming the folder when it is not a run folder. */
export async function assertRunFolder(runDir: string): Promise<void> {
  const info = await stat(runDir).catch(() => null);
  if (!info?.isDirectory()) {
    throw new ConfigError({ file: runDir, message: 'not a run folder', expected: 'a directory such as results/<run-id>/ holding manifest.json, trials.jsonl and summary.json' });
  }
  const missing: string[] = [];
  for (const name of Object.values(RUN_FILES)) {
    if (!(await stat(join(runDir, name)).catch(() => null))?.isFile()) missing.push(name);
  }
  if (missing.length > 0) {
    throw new ConfigError({ file: runDir, message: `run folder is missing ${missing.join(', ')}`, expected: 'manifest.json, trials.jsonl and summary.json (summary.json is written when a run finishes)' });
  }
}

async function readJsonFile<T>(file: string, schema: z.ZodType<T>, what: string): Promise<T> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError({ file, message: `cannot read ${what}: ${error instanceof Error ? error.message : String(error)}`, expected: 'a JSON file' });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({ file, field: issue.path.join('.') || undefined, message: `invalid ${what}: ${issue.message}`, expected: `a ${what} (src/spec)` });
  }
  return parsed.data;
}

/** Reads and validates `manifest.json`. */
export function readManifest(runDir: string): Promise<Manifest> {
  return readJsonFile(join(runDir, RUN_FILES.manifest), Manifest, 'Manifest');
}

/** Reads and validates `summary.json`. */
export function readSummary(runDir: string): Promise<Summary> {
  return readJsonFile(join(runDir, RUN_FILES.summary), Summary, 'Summary');
}

/**
 * Streams `trials.jsonl` one validated record at a time, so a report never
 * holds a 100k-trial run in memory. A bad line is a ConfigError naming its
 * line, except an unterminated last line: that is a trial a killed run was
 * still writing, and is skipped (the runner's `--resume` redoes it).
 */
export async function* streamTrials(runDir: string): AsyncGenerator<TrialRecord> {
  const file = join(runDir, RUN_FILES.trials);
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let lineNumber = 0;
  let pending: { text: string; line: number } | null = null;
  for await (const text of lines) {
    lineNumber += 1;
    if (pending) yield parseTrialLine(file, pending.text, pending.line);
    pending = text.trim() === '' ? null : { text, line: lineNumber };
  }
  if (pending) {
    // readline drops the distinction between "…}\n" and "…}" at EOF; a line
    // that parses is complete either way, a line that does not is in flight.
    const record = tryParseTrialLine(pending.text);
    if (record) yield record;
    else if (await endsWithNewline(file)) yield parseTrialLine(file, pending.text, pending.line);
  }
}

function tryParseTrialLine(text: string): TrialRecord | null {
  try {
    const parsed = TrialRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function parseTrialLine(file: string, text: string, line: number): TrialRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({ file, line, message: `not JSON: ${error instanceof Error ? error.message : String(error)}`, expected: 'one TrialRecord per line' });
  }
  const parsed = TrialRecord.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({ file, line, field: issue.path.join('.') || undefined, message: `invalid TrialRecord: ${issue.message}`, expected: 'a TrialRecord (src/spec/trial.ts)' });
  }
  return parsed.data;
}

async function endsWithNewline(file: string): Promise<boolean> {
  const { size } = await stat(file);
  if (size === 0) return true;
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(1);
    await handle.read(buffer, 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

/** Is this run's evidence synthetic (shipped cassettes), not a real model's? */
export function isSynthetic(manifest: Manifest, summary: Summary): boolean {
  return summary.synthetic || manifest.providers.some((provider) => provider.synthetic);
}
