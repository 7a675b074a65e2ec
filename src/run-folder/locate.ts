import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { ConfigError, closest } from '../spec/index.ts';
import { RUN_FILES } from './files.ts';

/** A run folder holds its manifest (written first) or its trials (runs written before manifests, test fixtures). */
function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, RUN_FILES.manifest)) || existsSync(join(dir, RUN_FILES.trials));
}

/** Run ids (names of the run folders) under the results folder, sorted. */
export function listRuns(resultsDir: string): string[] {
  if (!existsSync(resultsDir)) return [];
  return readdirSync(resultsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isRunFolder(join(resultsDir, entry.name)))
    .map((entry) => entry.name)
    .sort();
}

/**
 * RUN as a folder path (relative to the current folder), else as a run id
 * under the results folder; null when neither is a run folder. A folder
 * named by its path is taken even when it holds no run files yet, so the
 * caller can say which file is missing (`report`, `--resume`).
 */
export function findRunFolder(text: string, resultsDir: string): string | null {
  const direct = resolve(text);
  if (isRunFolder(direct) || (isAbsolute(text) || text.includes(sep) ? isDirectory(direct) : false)) return direct;
  const byId = join(resultsDir, text);
  return isRunFolder(byId) ? byId : null;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The ConfigError for a run that is not there: where it was looked for, the runs that are, the nearest one. */
export function noRunFolder(text: string, resultsDir: string, flag: string): ConfigError {
  const runs = listRuns(resultsDir);
  return new ConfigError({
    file: flag,
    field: text,
    message: `no run folder "${text}" (looked at ${resolve(text)} and ${join(resultsDir, text)})`,
    expected: runs.length
      ? `a run folder or one of: ${runs.slice(-10).join(', ')}`
      : 'a run folder written by `toolmark run`',
    suggestion: closest(text, runs),
  });
}

/**
 * The one way a command finds a run it is given (`--resume RUN`,
 * `report RUN`, `compare A B`, `gate RUN`, `merge RUN…`): RUN is a folder
 * path, or a run id under the results folder; a miss is a ConfigError
 * naming the nearest run id.
 */
export function locateRun(text: string, resultsDir: string, flag = 'RUN'): string {
  const found = findRunFolder(text, resultsDir);
  if (found === null) throw noRunFolder(text, resultsDir, flag);
  return found;
}
