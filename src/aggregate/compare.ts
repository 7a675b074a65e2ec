import {
  TASK_KINDS,
  type ComparedMetric,
  type CompareSection,
  type CompareSide,
  type Comparison,
  type FlippedTask,
  type HeldoutCheck,
  type NoiseFloor,
  type TrialRecord,
} from '../spec/index.ts';
import { compareMetric, PAIRED_METRICS, type CompareMetricOptions } from './compare-metric.ts';
import { collectTrials, pairTrials, type CompactTrial, type TrialPair } from './pairing.ts';

/** One side of a comparison before reading: where its trials come from. */
export interface CompareInput {
  label: string;
  runId: string;
  runDir: string;
  /** Keep only this surface; null = every surface in the run. */
  surface: string | null;
  synthetic?: boolean;
  records: AsyncIterable<TrialRecord> | Iterable<TrialRecord>;
}

export interface CompareOptions extends CompareMetricOptions {
  /** Only sections of this split (default: train, heldout and all). */
  split?: 'train' | 'heldout' | 'all';
}

const SPLITS = ['train', 'heldout', 'all'] as const;
const KINDS = [...TASK_KINDS, 'all'];

function flippedTasks(pairs: readonly TrialPair[]): { better: FlippedTask[]; worse: FlippedTask[] } {
  const tasks = new Map<string, FlippedTask>();
  for (const pair of pairs) {
    const task = tasks.get(pair.taskKey) ?? { task: pair.taskKey, a: { c: 0, n: 0 }, b: { c: 0, n: 0 } };
    task.a.n += 1;
    task.b.n += 1;
    if (pair.a.facts!.success) task.a.c += 1;
    if (pair.b.facts!.success) task.b.c += 1;
    tasks.set(pair.taskKey, task);
  }
  const change = (task: FlippedTask) => task.b.c - task.a.c;
  const all = [...tasks.values()];
  const byChange = (left: FlippedTask, right: FlippedTask) =>
    Math.abs(change(right)) - Math.abs(change(left)) || left.task.localeCompare(right.task);
  return {
    better: all.filter((task) => change(task) > 0).sort(byChange),
    worse: all.filter((task) => change(task) < 0).sort(byChange),
  };
}

function meanOf(trials: readonly CompactTrial[]): number | null {
  if (trials.length === 0) return null;
  return trials.reduce((sum, trial) => sum + trial.schemaTokens, 0) / trials.length;
}

function section(
  split: CompareSection['split'],
  kind: string,
  pairs: readonly TrialPair[],
  options: CompareMetricOptions,
): CompareSection {
  const a = meanOf(pairs.map((pair) => pair.a));
  const b = meanOf(pairs.map((pair) => pair.b));
  return {
    split,
    kind,
    pairs: pairs.length,
    schema_tokens: { a, b, difference: a === null || b === null ? null : b - a },
    metrics: PAIRED_METRICS.map((definition) => compareMetric(definition, pairs, options)),
    flipped: flippedTasks(pairs),
  };
}

const signed = (value: number | null) => (value === null ? 'n/a' : `${value >= 0 ? '+' : ''}${value.toFixed(3)}`);
const describe = (metric: ComparedMetric) =>
  `${signed(metric.difference)} [${signed(metric.low)}, ${signed(metric.high)}]${metric.mcnemar ? `, McNemar p = ${metric.mcnemar.p.toPrecision(3)}` : ''}`;

/**
 * Held-out check (SPEC §5): a revision whose train task_success improves
 * detectably while held-out does not is flagged as likely overfit.
 */
export function heldoutCheck(sections: readonly CompareSection[]): HeldoutCheck {
  const successOf = (split: string) =>
    sections
      .find((entry) => entry.split === split && entry.kind === 'all')
      ?.metrics.find((metric) => metric.metric === 'task_success');
  const train = successOf('train');
  const heldout = successOf('heldout');
  if (train === undefined || train.verdict === 'no data')
    return { status: 'no_train', message: 'Held-out check: not possible, no paired train trials.' };
  if (train.verdict !== 'better') {
    return {
      status: 'no_train_improvement',
      message: `Held-out check: train task_success shows no detectable improvement (${describe(train)}); nothing to check.`,
    };
  }
  if (heldout === undefined || heldout.verdict === 'no data') {
    return {
      status: 'no_heldout',
      message: `Held-out check: train task_success improved (${describe(train)}) but there are no paired held-out trials to confirm it.`,
    };
  }
  if (heldout.verdict === 'better') {
    return {
      status: 'confirmed',
      message: `Held-out check: the train improvement (${describe(train)}) holds on held-out tasks (${describe(heldout)}).`,
    };
  }
  return {
    status: 'overfit',
    message: `Held-out check: the revision likely overfits the train tasks. Train task_success improved (${describe(train)}) but held-out did not (${describe(heldout)}).`,
  };
}

function noiseFloor(sections: readonly CompareSection[]): NoiseFloor[] {
  const floors: NoiseFloor[] = [];
  for (const entry of sections) {
    if (entry.kind !== 'all') continue;
    for (const metric of entry.metrics) {
      if (metric.metric !== 'task_success' && metric.metric !== 'selection_accuracy') continue;
      floors.push({
        split: entry.split,
        metric: metric.metric,
        n: metric.n,
        difference: metric.difference,
        low: metric.low,
        high: metric.high,
        mde: metric.mde,
      });
    }
  }
  return floors;
}

function side(input: CompareInput, trials: readonly CompactTrial[], surfaces: string[]): CompareSide {
  const providers = [...new Set(trials.map((trial) => `${trial.provider}:${trial.model}`))].sort();
  const errored = trials.filter((trial) => trial.errorMessage !== null);
  return {
    label: input.label,
    run_id: input.runId,
    run_dir: input.runDir,
    surface: input.surface,
    surfaces,
    providers,
    synthetic: input.synthetic ?? false,
    trials: trials.length,
    errored: errored.length,
    first_error: errored[0]?.errorMessage ?? null,
  };
}

/** Thrown (as data for the CLI to turn into a ConfigError) when a requested surface has no trials. */
export class MissingSurfaceError extends Error {
  constructor(
    readonly input: CompareInput,
    readonly available: string[],
  ) {
    super(`run ${input.runId} has no trials for surface "${input.surface}"; it has: ${available.join(', ') || 'none'}`);
    this.name = 'MissingSurfaceError';
  }
}

/**
 * Compare two sides trial by trial (SPEC §5, §7): per split and kind, both
 * rates, the paired difference with its interval, McNemar p, flipped tasks
 * and the schema-token difference; then the held-out check, and for an A/A
 * comparison the noise floor. Same surface of the same run is split into
 * even and odd trials so the two halves are independent.
 */
export async function compareSides(
  a: CompareInput,
  b: CompareInput,
  options: CompareOptions = {},
): Promise<Comparison> {
  const sameSource = a.runDir === b.runDir && a.surface === b.surface;
  const collectedA = await collectTrials(a.records, a.surface);
  const collectedB = sameSource ? collectedA : await collectTrials(b.records, b.surface);
  if (a.surface !== null && collectedA.trials.length === 0) throw new MissingSurfaceError(a, collectedA.surfaces);
  if (b.surface !== null && collectedB.trials.length === 0) throw new MissingSurfaceError(b, collectedB.surfaces);
  const pairing = pairTrials(collectedA.trials, collectedB.trials, { splitTrials: sameSource });

  const sections: CompareSection[] = [];
  const splits = options.split ? [options.split] : SPLITS;
  for (const split of splits) {
    for (const kind of KINDS) {
      const pairs = pairing.pairs.filter(
        (pair) => (split === 'all' || pair.split === split) && (kind === 'all' || pair.kind === kind),
      );
      if (pairs.length > 0) sections.push(section(split, kind, pairs, options));
    }
  }
  // Two folders of one run (a copy, one side re-scored) pair each trial with
  // itself: the same evidence, not independent trials, so not an A/A.
  const sameTrials = !sameSource && a.runId === b.runId;
  const aa =
    !sameTrials &&
    pairing.pairs.length > 0 &&
    pairing.pairs.every(
      (pair) =>
        pair.a.surfaceHash === pair.b.surfaceHash &&
        pair.a.provider === pair.b.provider &&
        pair.a.model === pair.b.model,
    );
  return {
    v: 1,
    a: side(a, collectedA.trials, collectedA.surfaces),
    b: side(b, collectedB.trials, collectedB.surfaces),
    pairing: {
      key: pairing.key,
      pairs: pairing.pairs.length,
      unpaired_a: pairing.unpairedA,
      unpaired_b: pairing.unpairedB,
      errored: pairing.errored,
      split_trials: pairing.splitTrials,
    },
    aa,
    sections,
    heldout_check: heldoutCheck(sections),
    noise_floor: aa ? noiseFloor(sections) : [],
    warnings: smallSampleWarnings(sections),
  };
}

/**
 * Fewer paired tasks than this in a split and compare warns. The interval
 * resamples tasks: with 5 tasks a resample can only take 126 distinct
 * values and the percentile interval covers less than its 95% (it cannot
 * reach beyond the most extreme task), so `[±0.0 pp, +80.0 pp]` on a
 * handful of tasks is not evidence. The docs (docs/statistics.md) say why 10.
 */
export const MIN_COMPARE_TASKS = 10;

const SPLIT_NAMES = { train: 'train', heldout: 'held-out', all: 'all splits' } as const;

/** One warning per split whose paired tasks are too few, with what task_success could detect there. */
export function smallSampleWarnings(sections: readonly CompareSection[]): string[] {
  const warnings: string[] = [];
  for (const entry of sections) {
    if (entry.kind !== 'all') continue;
    const success = entry.metrics.find((metric) => metric.metric === 'task_success');
    if (success === undefined || success.verdict === 'no data' || success.tasks >= MIN_COMPARE_TASKS) continue;
    const mde =
      success.mde === null
        ? 'no change at all is detectable'
        : `the smallest detectable task_success change is ${(success.mde * 100).toFixed(1)} pp`;
    warnings.push(
      `${SPLIT_NAMES[entry.split]}: only ${success.tasks} task${success.tasks === 1 ? '' : 's'} paired (${success.n} pairs), fewer than ${MIN_COMPARE_TASKS}: ` +
        `the interval is resampled over ${success.tasks === 1 ? 'trials of one task' : `${success.tasks} tasks`} and ${mde}; read the verdicts as anecdotes, not evidence`,
    );
  }
  return warnings;
}
