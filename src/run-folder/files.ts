import { randomBytes } from 'node:crypto';
import { renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../spec/index.ts';

/** The files of a run folder (`results/<run-id>/`, SPEC §3). */
export const RUN_FILES = { manifest: 'manifest.json', trials: 'trials.jsonl', summary: 'summary.json' } as const;

/** Path of one of the run files inside a run folder. */
export function runFile(runDir: string, name: keyof typeof RUN_FILES): string {
  return path.join(runDir, RUN_FILES[name]);
}

/** `2026-11-29T22-40-00Z-ab12`: sortable, safe in file names, unique enough for parallel CI jobs. */
export function createRunId(
  now: Date = new Date(),
  random: () => string = () => randomBytes(2).toString('hex'),
): string {
  return `${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}-${random()}`;
}

/** A run id names one folder under the results folder; `../x` or `a/b` would write somewhere else. Returns the id. */
export function checkRunId(id: string, flag = '--run-id'): string {
  if (/^[A-Za-z0-9._-]+$/.test(id) && !/^\.+$/.test(id)) return id;
  throw new ConfigError({
    file: flag,
    field: id,
    message: 'not a run id',
    expected: 'one folder name: letters, digits, dot, dash or underscore',
  });
}

/** Write a file whole or not at all (temp file + rename), so a crash never leaves half a manifest. */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/**
 * A finished run folder holds all three run files; anything else is a
 * ConfigError naming the folder (reports need every one of them).
 */
export function assertRunFolder(runDir: string): void {
  const isDirectory = (() => {
    try {
      return statSync(runDir).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!isDirectory) {
    throw new ConfigError({
      file: runDir,
      message: 'not a run folder',
      expected: 'a directory such as results/<run-id>/ holding manifest.json, trials.jsonl and summary.json',
    });
  }
  const missing = Object.values(RUN_FILES).filter((name) => {
    try {
      return !statSync(path.join(runDir, name)).isFile();
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new ConfigError({
      file: runDir,
      message: `run folder is missing ${missing.join(', ')}`,
      expected: 'manifest.json, trials.jsonl and summary.json (summary.json is written when a run finishes)',
    });
  }
}
