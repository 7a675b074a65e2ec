import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { ConfigError, Manifest, Summary, TrialRecord, type Price } from '../spec/index.ts';
import { createAggregator } from './aggregator.ts';

/** File names inside a run folder (SPEC §3). */
export const RUN_FILE_NAMES = { manifest: 'manifest.json', trials: 'trials.jsonl', summary: 'summary.json' } as const;

function parseLine(text: string, file: string, line: number): TrialRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({ file, line, message: `not valid JSON (${(error as Error).message})`, expected: 'one trial record per line' });
  }
  const parsed = TrialRecord.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({ file, line, field: issue.path.join('.'), message: issue.message, expected: 'a trial record (SPEC §3)' });
  }
  return parsed.data;
}

/**
 * Stream a run's `trials.jsonl`, one validated record at a time. A last line
 * that does not parse is a write torn by a killed run and is dropped; a bad
 * line anywhere else is a ConfigError naming file and line.
 */
export async function* readRunTrials(runDir: string): AsyncGenerator<TrialRecord> {
  const file = join(runDir, RUN_FILE_NAMES.trials);
  if (!existsSync(file)) throw new ConfigError({ file, message: 'no trials.jsonl: not a run folder, or the run has not started', expected: 'a folder written by `toolmark run`' });
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let pending: { text: string; line: number } | null = null;
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber += 1;
    if (pending !== null) yield parseLine(pending.text, file, pending.line);
    pending = text.trim() === '' ? null : { text, line: lineNumber };
  }
  if (pending === null) return;
  try {
    JSON.parse(pending.text);
  } catch {
    return; // torn last line
  }
  yield parseLine(pending.text, file, pending.line);
}

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<T | null> {
  if (!existsSync(file)) return null;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError({ file, message: `not valid JSON (${(error as Error).message})` });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({ file, field: issue.path.map(String).join('.'), message: issue.message });
  }
  return parsed.data;
}

/** A run's manifest, or null when it has none. */
export function readRunManifest(runDir: string): Promise<Manifest | null> {
  return readJson(join(runDir, RUN_FILE_NAMES.manifest), Manifest);
}

/** A run's summary.json, or null when it has none (e.g. a killed run). */
export function readRunSummary(runDir: string): Promise<Summary | null> {
  return readJson(join(runDir, RUN_FILE_NAMES.summary), Summary);
}

/** Aggregate a run's trials afresh (works for a killed run without summary.json). */
export async function summarizeRun(runDir: string, options: { runId: string; prices: Record<string, Price>; synthetic?: boolean }): Promise<Summary> {
  const aggregator = createAggregator(options);
  for await (const record of readRunTrials(runDir)) aggregator.add(record);
  return aggregator.finish();
}
