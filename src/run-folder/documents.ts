import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigError, Manifest, Summary } from '../spec/index.ts';
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
  write(runFile(runDir, 'manifest'), `${JSON.stringify(Manifest.parse(manifest), null, 2)}\n`);
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
  return schema.parse(JSON.parse(JSON.stringify(value)));
}
