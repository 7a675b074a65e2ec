import { existsSync, statSync } from 'node:fs';
import { loadProject, type Project } from '../load/index.ts';
import { startChartWorker, type ChartWorker } from '../report/index.ts';
import {
  RunFolderTransaction,
  asWritten,
  assertRunFolder,
  createDuplicateCheck,
  gradedText,
  openRunFolder,
  trialLine,
  parseUngradedTrialLine,
  readManifest,
  readSummary,
  readTrialLines,
  replaceTrials,
  runFile,
  writeManifest,
  type UngradedTrial,
} from '../run-folder/index.ts';
import { scoreTrial } from '../score/index.ts';
import {
  ConfigError,
  type ConfigIssue,
  isTrialRecordShape,
  Manifest,
  type ProjectConfig,
  Summary,
  type TrialRecord,
} from '../spec/index.ts';
import type { RunEvents } from './events.ts';
import { createRunFinalizer } from './finalizer.ts';
import { gradingInputsOf, gradingInputsUnchanged, type GradingInputs } from './grading-inputs.ts';
import { partialRescore, taskKey, type Grading } from './partial-rescore.ts';
import { toolmarkVersion } from './version.ts';

/** `rescoreRun`: which run, against which project. */
export interface RescoreRunOptions {
  /** The run folder. */
  runDir: string;
  /** The project root whose tasks grade the run (only the run's domains are loaded). */
  root: string;
  /** The project already loaded (`loadProjectForRun`), e.g. to time loading apart; loaded from `root` when absent. */
  project?: Project;
  /** Most trials embedded in the HTML trial browser. */
  sampleLimit?: number;
  /** `onPhase('reports')` once summary.json is written; `betweenPhases` before the reports render. */
  events?: RunEvents;
  /**
   * When the run recorded its grading inputs and they are all unchanged
   * (src/run/grading-inputs.ts), grade nothing and leave the run folder as
   * it is (`unchanged: true`): the grades, summary and reports are already
   * the ones a re-score would write. When only some task files changed,
   * only their trials are graded again, the others keep their recorded
   * grades (src/run/partial-rescore.ts); the folder written is the same.
   * `toolmark report --rescore` sets it.
   */
  skipUnchanged?: boolean;
  /**
   * A chart worker started already (`toolmark report --rescore` starts it
   * before it loads anything): used by a partial re-score, stopped otherwise.
   */
  charts?: ChartWorker;
}

/** What a re-score found. */
export interface RescoreResult {
  /** Nothing was graded: every grading input is as the run recorded it (`skipUnchanged`); the folder is untouched. */
  unchanged: boolean;
  /** Trials re-scored (0 when `unchanged`): every trial of the run, graded again or known to keep its grade. */
  trials: number;
  /** Trials graded again: all of them, or only those of the task files that changed (a partial re-score). */
  regraded: number;
  /** Trials whose verdicts differ from the recorded ones (trials.jsonl was rewritten when > 0). */
  changed: number;
  /** Per task (`domain/task`) with a changed outcome: trials that now pass, and that now fail. */
  flips: Map<string, { nowPass: number; nowFail: number }>;
  /** The rebuilt summary.json. */
  summary: Summary;
}

/** The project at `root`, with only the domains the run at `runDir` used (an unrelated domain may not load any more). */
export function loadProjectForRun(root: string, runDir: string): Promise<Project> {
  const domains = [...new Set(readManifest(runDir).tasks.map((task) => task.domain))];
  return loadProject(root, { domains });
}

/**
 * Re-score a finished run against the project's tasks as they are today,
 * without calling any model (`toolmark report --rescore`): every recorded
 * trial is graded again, `summary.json` and the reports are rebuilt from
 * the new verdicts, and `trials.jsonl` is rewritten (atomically) when any
 * verdict changed, so `compare` and `gate` see the same grades as the
 * summary. The manifest records that, when, and how many changed.
 *
 * Checked before anything is written: every task the run used still exists,
 * with the same kind and split (a task that moved split or changed kind is
 * a different measurement: run it again instead).
 *
 * One pass grades and aggregates (only the evidence of each line is parsed,
 * see src/run-folder/graded-tail.ts); a second pass, only when verdicts
 * changed, copies the file with the changed lines' grades replaced. With
 * `skipUnchanged`, a trial whose task file is unchanged is not graded again
 * (src/run/partial-rescore.ts): its recorded grade is the one grading would
 * give, so the folder written is the same.
 */
export async function rescoreRun(options: RescoreRunOptions): Promise<RescoreResult> {
  const { runDir } = options;
  assertRunFolder(runDir);
  // The folder is ours until the re-score is installed; a re-score killed earlier is finished or undone first.
  const lock = openRunFolder(runDir, 'report --rescore');
  try {
    for (const note of lock.notes) options.events?.onNote?.(note);
    return await rescoreLocked(options);
  } finally {
    options.charts?.stop();
    lock.release();
  }
}

/** The largest trials.jsonl whose partial re-score starts the chart worker first (~20,000 trials of ~3 KB). */
const EARLY_CHARTS_LIMIT = 64 * 1024 * 1024;

/**
 * A partial re-score of a small run (only some task files changed) spends
 * most of its time reading the trials and rendering the reports, and its
 * critical path is the chart worker: Vega's import and the drawing, ~0.6 s
 * on the second core, which the finalizer starts only once the summary is
 * made (for a large run, so that the worker's ~40 MB never come on top of the
 * trials' garbage). Here the worker starts before anything is read, so it
 * imports Vega while this thread grades. A larger run, or one that may need
 * every trial graded again, keeps the finalizer's order.
 */
function earlyCharts(options: RescoreRunOptions, manifest: Manifest): ChartWorker | undefined {
  const recorded = manifest.grading_inputs;
  const likelyPartial =
    options.skipUnchanged === true &&
    options.project === undefined &&
    recorded?.files !== undefined &&
    manifest.finished_at !== null &&
    manifest.partial === undefined;
  if (likelyPartial && trialsBytes(options.runDir) <= EARLY_CHARTS_LIMIT) return options.charts ?? startChartWorker();
  options.charts?.stop();
  return undefined;
}

function trialsBytes(runDir: string): number {
  try {
    return statSync(runFile(runDir, 'trials')).size;
  } catch {
    return Infinity;
  }
}

async function rescoreLocked(options: RescoreRunOptions): Promise<RescoreResult> {
  const { runDir } = options;
  const manifest = readManifest(runDir);
  if (options.skipUnchanged && nothingToRegrade(runDir, manifest, options.root))
    return { unchanged: true, trials: 0, regraded: 0, changed: 0, flips: new Map(), summary: readSummary(runDir) };
  const charts = earlyCharts(options, manifest);
  try {
    return await rescoreWith(options, manifest, charts);
  } finally {
    charts?.stop();
  }
}

async function rescoreWith(
  options: RescoreRunOptions,
  manifest: Manifest,
  early: ChartWorker | undefined,
): Promise<RescoreResult> {
  const { runDir } = options;
  const manifestFile = runFile(runDir, 'manifest');
  const domains = manifest.tasks.map((task) => task.domain);
  // Only some task files changed: grade only their trials (null: grade every trial).
  const partial =
    options.skipUnchanged && options.project === undefined ? await partialRescore(options.root, manifest) : null;
  let config: ProjectConfig;
  let gradings: Map<string, Grading>;
  let inputsToday: () => GradingInputs | undefined;
  if (partial !== null) {
    ({ config } = partial);
    gradings = tasksToGrade(
      partial.today,
      manifest.tasks.filter((task) => partial.today.has(taskKey(task.domain, task.id))),
      options.root,
      manifestFile,
    );
    inputsToday = () => partial.inputs;
  } else {
    // Every trial graded again: the finalizer starts its chart worker once their garbage is let go.
    early?.stop();
    const project = options.project ?? (await loadProject(options.root, { domains: [...new Set(domains)] }));
    ({ config } = project);
    gradings = tasksToGrade(todaysTasks(project), manifest.tasks, project.root, manifestFile);
    inputsToday = () => gradingInputsOf(project, domains);
  }
  const runTasks = partial === null ? null : new Set(manifest.tasks.map((task) => taskKey(task.domain, task.id)));
  const file = runFile(runDir, 'trials');
  /** The task to grade a trial against; null: a task of an unchanged file, whose trials keep their grades. */
  const gradingOf = (record: TrialRecord, line: number): Grading | null => {
    const key = taskKey(record.domain, record.task);
    const grading = gradings.get(key);
    if (grading !== undefined) return grading;
    if (runTasks?.has(key)) return null;
    throw new ConfigError({
      file,
      line,
      field: 'task',
      message: `task ${record.domain}/${record.task} is not in the run's manifest`,
      expected: 'trials of the tasks the manifest lists',
    });
  };

  const finalizer = createRunFinalizer({
    runId: manifest.run_id,
    config,
    synthetic: manifest.providers.some((provider) => provider.synthetic),
    sampleLimit: options.sampleLimit,
    events: options.events,
    charts: partial === null ? undefined : early,
  });
  const changedLines = new Set<number>();
  const duplicates = createDuplicateCheck(file);
  const flips = new Map<string, { nowPass: number; nowFail: number }>();
  let trials = 0;
  let regraded = 0;
  for await (const { text, line, complete } of readTrialLines(runDir)) {
    const kept = runTasks === null ? null : keptTrial(text, runTasks, gradings);
    if (kept !== null) {
      duplicates.check(kept, line);
      finalizer.add(kept);
      trials += 1;
      continue;
    }
    let ungraded: UngradedTrial | null;
    try {
      ungraded = parseUngradedTrialLine(text, file, line);
    } catch (error) {
      if (complete) throw error;
      break; // a torn last line: not a trial (the rewrite drops it too)
    }
    if (ungraded === null) continue;
    duplicates.check(ungraded.record, line);
    const grading = gradingOf(ungraded.record, line);
    const rescored =
      grading === null ? withRecordedGrade(ungraded) : scoreTrial(ungraded.record, grading.task, grading.actions);
    if (grading !== null) regraded += 1;
    if (grading !== null && gradedText(rescored) !== ungraded.graded) {
      changedLines.add(line);
      countFlip(flips, ungraded.graded, rescored);
    }
    finalizer.add(rescored);
    trials += 1;
  }

  // Trials, summary, manifest and reports are staged, then installed together
  // (src/run-folder/transaction.ts): after a kill at any point the folder is
  // the run before the re-score or after it, never new grades beside an old summary.
  const rescore = new RunFolderTransaction(runDir, 're-score');
  try {
    if (changedLines.size > 0) {
      await replaceTrials(runDir, rewrittenLines(runDir, changedLines, gradingOf), { into: rescore.stage(file) });
    }
    const summary = finalizer.writeSummary(runDir, rescore.write);
    await options.events?.onPhase?.('reports');
    // The inputs graded against now (none recorded when a domain has no digest).
    const { grading_inputs: _before, ...earlier } = manifest;
    const inputs = inputsToday();
    const rescored: Manifest = {
      ...earlier,
      ...(inputs ? { grading_inputs: inputs } : {}),
      rescored: {
        at: new Date().toISOString(),
        toolmark_version: toolmarkVersion(),
        trials,
        changed: changedLines.size,
      },
    };
    writeManifest(runDir, rescored, rescore.write);
    await finalizer.writeReports(runDir, {
      manifest: asWritten(Manifest, rescored),
      summary: asWritten(Summary, summary),
      write: rescore.write,
    });
    rescore.commit();
    return { unchanged: false, trials, regraded, changed: changedLines.size, flips, summary };
  } catch (error) {
    rescore.abandon();
    throw error;
  }
}

/**
 * True when a finished run with its summary recorded grading inputs that
 * are all the same today: grading is pure, so nothing would change.
 */
function nothingToRegrade(runDir: string, manifest: Manifest, root: string): boolean {
  if (manifest.grading_inputs === undefined || manifest.finished_at === null || manifest.partial !== undefined)
    return false;
  if (!existsSync(runFile(runDir, 'summary'))) return false;
  return gradingInputsUnchanged(manifest.grading_inputs, root);
}

/** Every task of a loaded project, by `taskKey`. */
function todaysTasks(project: Project): Map<string, Grading> {
  const today = new Map<string, Grading>();
  for (const domain of project.domains) {
    for (const task of domain.tasks) today.set(taskKey(domain.name, task.id), { task, actions: domain.domain.actions });
  }
  return today;
}

/** The tasks of the run, looked up in today's tasks; a ConfigError listing every one that is gone or changed kind/split. */
function tasksToGrade(
  today: ReadonlyMap<string, Grading>,
  runTasks: { domain: string; id: string; kind: string; split: string }[],
  root: string,
  manifestFile: string,
): Map<string, Grading> {
  const issues: ConfigIssue[] = [];
  const gradings = new Map<string, Grading>();
  for (const [index, used] of runTasks.entries()) {
    const grading = today.get(taskKey(used.domain, used.id));
    const field = `tasks.${index}`;
    if (grading === undefined) {
      issues.push({
        file: manifestFile,
        field,
        message: `task ${used.domain}/${used.id} of this run is not in the project at ${root}`,
        expected: 'every task the run used (re-score from the project the run came from)',
      });
    } else if (grading.task.kind !== used.kind || grading.task.split !== used.split) {
      issues.push({
        file: manifestFile,
        field,
        message: `task ${used.domain}/${used.id} was ${used.kind} in ${used.split} and is now ${grading.task.kind} in ${grading.task.split}`,
        expected: 'the same kind and split (a different measurement: run it again instead of re-scoring)',
      });
    } else gradings.set(taskKey(used.domain, used.id), grading);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return gradings;
}

/**
 * A partial re-score's trial of an unchanged task, parsed whole with the
 * grade it has, when the line is a plain trial record with its grade last
 * (as the runner writes every line); else null, and the line takes the
 * path of every other line (parseUngradedTrialLine), which gives the same
 * record for such a line, at twice the cost (its evidence and its grade
 * parsed apart), or its error.
 */
function keptTrial(
  text: string,
  runTasks: ReadonlySet<string>,
  gradings: ReadonlyMap<string, Grading>,
): TrialRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isTrialRecordShape(value)) return null;
  const key = taskKey(value.domain, value.task);
  if (gradings.has(key) || !runTasks.has(key)) return null;
  const keys = Object.keys(value);
  return keys[keys.length - 2] === 'verdicts' && keys[keys.length - 1] === 'success' ? value : null;
}

/**
 * A trial of an unchanged task with the grade it has: what grading it
 * again would give (grading is pure), keys in the same order.
 */
function withRecordedGrade(ungraded: UngradedTrial): TrialRecord {
  const { verdicts, success } = JSON.parse(`{${ungraded.graded}}`) as Pick<TrialRecord, 'verdicts' | 'success'>;
  ungraded.record.verdicts = verdicts;
  ungraded.record.success = success;
  return ungraded.record;
}

/** Count a trial whose success changed, by task. */
function countFlip(flips: RescoreResult['flips'], oldGraded: string, rescored: TrialRecord): void {
  const wasPass = oldGraded.endsWith('"success":true');
  if (wasPass === (rescored.success === true)) return;
  const key = `${rescored.domain}/${rescored.task}`;
  const entry = flips.get(key) ?? { nowPass: 0, nowFail: 0 };
  if (rescored.success === true) entry.nowPass += 1;
  else entry.nowFail += 1;
  flips.set(key, entry);
}

/**
 * trials.jsonl again, each changed line graded again and its grade replaced;
 * a torn last line is dropped. Grading the changed lines a second time,
 * rather than keeping their new grades from the first pass, keeps memory
 * bounded when a task edit changes most of a large run.
 */
async function* rewrittenLines(
  runDir: string,
  changed: ReadonlySet<number>,
  gradingOf: (record: TrialRecord, line: number) => Grading | null,
): AsyncGenerator<string> {
  const file = runFile(runDir, 'trials');
  for await (const { text, line, complete } of readTrialLines(runDir)) {
    if (!changed.has(line)) {
      if (complete && text.trim() !== '') yield text;
      continue;
    }
    const ungraded = parseUngradedTrialLine(text, file, line)!;
    // A changed line is always one graded again.
    const { task, actions } = gradingOf(ungraded.record, line)!;
    const rescored = scoreTrial(ungraded.record, task, actions);
    // The fast path keeps the line's own bytes for the evidence; an older line is written anew.
    yield ungraded.head !== null ? `${ungraded.head},${gradedText(rescored)}}` : trialLine(rescored);
  }
}
