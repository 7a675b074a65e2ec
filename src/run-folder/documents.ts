import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigError, Manifest, Summary } from '../spec/index.ts';
import { isManifestAsParsed } from '../spec/manifest.ts';
import { runFile, writeFileAtomic, type RunFileWriter } from './files.ts';

/** Read and validate one JSON document of a run folder; null when the file does not exist. */
function readDocument<T>(file: string, schema: z.ZodType<T>, what: string): T | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError({
      file,
      message: `cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({
      file,
      message: `invalid JSON in ${what}: ${(error as Error).message}`,
      expected: 'a JSON file',
    });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({
      file,
      field: issue.path.map(String).join('.') || undefined,
      message: `invalid ${what}: ${issue.message}`,
      expected: `a ${what} (src/spec)`,
    });
  }
  return parsed.data;
}

/** A run's `manifest.json`; a folder without one is not a run folder (ConfigError). */
export function readManifest(runDir: string): Manifest {
  const manifest = readOptionalManifest(runDir);
  if (manifest === null)
    throw new ConfigError({
      file: runFile(runDir, 'manifest'),
      message: 'not a run folder: manifest.json is missing',
      expected: 'a folder written by `toolmark run`',
    });
  return manifest;
}

/** A run's `manifest.json`, or null when it has none. */
export function readOptionalManifest(runDir: string): Manifest | null {
  return readDocument(runFile(runDir, 'manifest'), Manifest, 'Manifest');
}

/** Validate and write `manifest.json` atomically (it is rewritten when the run finishes), or through a transaction's `write`. */
export function writeManifest(runDir: string, manifest: Manifest, write: RunFileWriter = writeFileAtomic): void {
  write(runFile(runDir, 'manifest'), `${JSON.stringify(parseManifest(manifest), null, 2)}\n`);
}

/** The keys of a manifest's task entry, in the schema's order. */
const TASK_ENTRY_KEYS = ['domain', 'id', 'kind', 'split'];

/** A task entry `Manifest.parse` returns as it is: exactly the four string fields, in the schema's order. */
function isPlainTaskEntry(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  let at = 0;
  for (const key in entry) {
    if (key !== TASK_ENTRY_KEYS[at] || typeof (entry as Record<string, unknown>)[key] !== 'string') return false;
    at += 1;
  }
  return at === TASK_ENTRY_KEYS.length;
}

/**
 * `Manifest.parse(value)`. A manifest toolmark built (a run's, before its
 * trials and when it ends; read back for the reports) is what the parse
 * would return, key for key and in the same order (`isManifestAsParsed`):
 * it is used as it is. zod's parse of the 10k run's manifest cost the
 * pre-flight ~7–8 ms of its main thread (~23 ms cold from source), the
 * compiled check ~0.6 ms (~3 ms on its first call, compiling it). Anything
 * else (a hand-made or older manifest: defaults to fill) goes through the
 * schema, its task list checked by hand: a manifest
 * lists every task of the run, 100,000 entries for 100,000 tasks, and zod's
 * parse built a copy of each (three times in a run: the manifest written
 * before the trials, then after, then as the reports read it), ~10–20 MB of
 * garbage at once at the end of a large run's pre-flight, its peak. Entries
 * that are exactly what zod would return are kept as they are (so the JSON
 * is the same); any other list is zod's.
 */
function parseManifest(value: unknown): Manifest {
  if (isManifestAsParsed(value)) return value;
  const tasks = (value as { tasks?: unknown } | null)?.tasks;
  if (!Array.isArray(tasks) || !tasks.every(isPlainTaskEntry)) return Manifest.parse(value);
  const parsed = Manifest.parse({ ...(value as object), tasks: [] });
  // The key is there already, so the list keeps its place in the JSON.
  parsed.tasks = tasks as Manifest['tasks'];
  return parsed;
}

/** A run's `summary.json`; ConfigError when missing (a killed run has none) or invalid. */
export function readSummary(runDir: string): Summary {
  const summary = readDocument(runFile(runDir, 'summary'), Summary, 'Summary');
  if (summary === null)
    throw new ConfigError({
      file: runFile(runDir, 'summary'),
      message: 'the run has no summary.json (it did not finish)',
      expected: 'a finished run, or `toolmark run --resume`',
    });
  return summary;
}

/** Write `summary.json` atomically, or through a transaction's `write`. */
export function writeSummary(runDir: string, summary: Summary, write: RunFileWriter = writeFileAtomic): void {
  write(runFile(runDir, 'summary'), `${JSON.stringify(summary, null, 2)}\n`);
}

/**
 * A document as a reader of the folder will see it: through JSON and its
 * schema (defaults filled in). Reports rendered from a staged manifest or
 * summary use this, so they are byte for byte what `toolmark report` renders later.
 */
export function asWritten<T>(schema: z.ZodType<T>, value: T): T {
  if (schema === (Manifest as unknown)) return manifestAsWritten(value) as T;
  return schema.parse(JSON.parse(JSON.stringify(value)));
}

/**
 * `asWritten` of a manifest. Its task list of plain entries (four strings,
 * `isPlainTaskEntry`) is what JSON gives back, string for string, so it is
 * kept as it is and only the rest goes through JSON; any other list goes
 * through JSON too. At the end of a 10,000-task run the list is ~1 MB of
 * JSON: written and read back it cost the reports ~11–26 ms, and its 10,000
 * new entries lived through the reports' scavenges, copied and promoted.
 * A task list is not changed after it is made (the run's, the reports').
 */
function manifestAsWritten(value: unknown): Manifest {
  const tasks = (value as { tasks?: unknown } | null)?.tasks;
  if (!Array.isArray(tasks) || !tasks.every(isPlainTaskEntry)) return parseManifest(JSON.parse(JSON.stringify(value)));
  const read = JSON.parse(JSON.stringify({ ...(value as object), tasks: [] })) as { tasks: unknown };
  read.tasks = tasks;
  return parseManifest(read);
}
