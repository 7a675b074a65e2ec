import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gradingInputsUnchanged, type GradingInputs } from './grading-inputs.ts';

/**
 * `toolmark report RUN --rescore` with nothing to re-grade, answered before
 * the command loads anything heavy.
 *
 * The answer itself costs a few milliseconds (digests of bytes,
 * src/run/grading-inputs.ts); what made it cost ~0.4 s of CPU was the way
 * there: the schemas (zod), the config loader, the run-folder library and a
 * schema check of a manifest that lists every task (1 MB for 10,000 tasks).
 * None of them is needed to see that the inputs are the recorded ones, so
 * this module imports only node and the digests. It answers true only when
 * the full path (`rescoreRun` with `skipUnchanged`) would certainly answer
 * "unchanged" too, and does nothing else: when in any doubt it answers false
 * and the command takes the full path, with its locks, repairs and errors.
 *
 * - RUN names a run folder by its path (a run id needs the config's results
 *   folder: full path);
 * - the folder is idle and clean: no lock, no journal, no temporary file (a
 *   writer at work or one that was killed: the full path locks and repairs);
 * - the manifest and summary read as JSON, the run finished and is not a
 *   partial merge, and its recorded grading inputs equal today's. The config's
 *   bytes and toolmark's code being the ones the run loaded, the config is
 *   as valid as it was then.
 */

// The run folder's file names (src/run-folder/files.ts, lock.ts,
// transaction.ts), repeated here so as not to load that library (and the
// schemas it imports); test/run/rescore-quick-check.test.ts checks they agree.
export const QUICK_CHECK_FILES = {
  manifest: 'manifest.json',
  trials: 'trials.jsonl',
  summary: 'summary.json',
  lock: 'run.lock',
  journal: 'pending.json',
  temporarySuffix: '.tmp',
} as const;

/** The run folder `run` names (a path), when `report --rescore` would find nothing to re-grade in it; else null. */
export function unchangedRunFolder(run: string, root: string): string | null {
  const runDir = resolve(run);
  const files = QUICK_CHECK_FILES;
  let entries: string[];
  try {
    entries = readdirSync(runDir);
  } catch {
    return null;
  }
  const present = new Set(entries);
  if (![files.manifest, files.trials, files.summary].every((name) => present.has(name))) return null;
  if (present.has(files.lock) || present.has(files.journal)) return null;
  if (entries.some((name) => name.endsWith(files.temporarySuffix))) return null;
  const manifest = readJson(join(runDir, files.manifest));
  if (!isRecord(manifest) || !isRecord(readJson(join(runDir, files.summary)))) return null;
  if (typeof manifest.finished_at !== 'string' || manifest.partial !== undefined) return null;
  const inputs = manifest.grading_inputs;
  if (!isGradingInputs(inputs)) return null;
  return gradingInputsUnchanged(inputs, resolve(root)) ? runDir : null;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isGradingInputs(value: unknown): value is GradingInputs {
  return (
    isRecord(value) &&
    typeof value.code === 'string' &&
    typeof value.config === 'string' &&
    isRecord(value.domains) &&
    Object.values(value.domains).every((digest) => typeof digest === 'string')
  );
}

/** What `report --rescore` prints when nothing needs grading again. */
export function nothingToRescoreMessage(root: string): string {
  return `nothing to re-score: the tasks, actions and config in ${root} and toolmark's code are the ones this run was graded with; the run is unchanged\n`;
}
