import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { closest } from 'fastest-levenshtein';
import { ConfigError } from '../spec/index.ts';
import { RUN_FILES } from '../run-folder/index.ts';

/** A run folder, optionally narrowed to one surface (`RUN:surface`). */
export interface RunRef {
  /** As the user wrote it. */
  text: string;
  runDir: string;
  runId: string;
  surface: string | null;
}

const isRunDir = (dir: string) => existsSync(join(dir, RUN_FILES.trials));

/** Run ids (folder names holding a trials.jsonl) under the results folder. */
export function listRuns(resultsDir: string): string[] {
  if (!existsSync(resultsDir)) return [];
  return readdirSync(resultsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isRunDir(join(resultsDir, entry.name)))
    .map((entry) => entry.name)
    .sort();
}

function findRunDir(text: string, resultsDir: string): string | null {
  for (const candidate of [resolve(text), join(resultsDir, text)]) if (isRunDir(candidate)) return candidate;
  return null;
}

/**
 * Resolve `RUN` or `RUN:surface`, where RUN is a folder path or a run id
 * under the results folder. Unknown → ConfigError with the closest run id.
 */
export function resolveRunRef(text: string, resultsDir: string, flag = 'run'): RunRef {
  const direct = findRunDir(text, resultsDir);
  if (direct !== null) return { text, runDir: direct, runId: basename(direct), surface: null };
  const colon = text.lastIndexOf(':');
  if (colon > 0 && colon < text.length - 1) {
    const runDir = findRunDir(text.slice(0, colon), resultsDir);
    if (runDir !== null) return { text, runDir, runId: basename(runDir), surface: text.slice(colon + 1) };
  }
  const runs = listRuns(resultsDir);
  const wanted = colon > 0 ? text.slice(0, colon) : text;
  throw new ConfigError({
    file: flag,
    field: text,
    message: `no run "${wanted}" (looked for ${RUN_FILES.trials} in ${resolve(wanted)} and ${join(resultsDir, wanted)})`,
    expected: runs.length ? `a run folder or one of: ${runs.slice(-10).join(', ')}` : 'a run folder written by `toolmark run`',
    ...(runs.length ? { suggestion: closest(wanted, runs) } : {}),
  });
}
