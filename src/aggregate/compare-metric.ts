import type { ComparedMetric, CompareVerdict } from '../spec/index.ts';
import type { TrialFacts } from '../score/index.ts';
import { mcnemarExact, minimumDetectableEffect, pairedBootstrap } from '../stats/index.ts';
import type { TrialPair } from './pairing.ts';

/** A per-trial value compare can pair: 0/1 for binary metrics, a number otherwise; null = not applicable. */
export interface PairedMetricDefinition {
  name: string;
  binary: boolean;
  higherIsBetter: boolean;
  value(facts: TrialFacts): number | null;
}

const bit = (value: boolean | null) => (value === null ? null : value ? 1 : 0);

/** The metrics `toolmark compare` pairs, in display order. */
export const PAIRED_METRICS: readonly PairedMetricDefinition[] = [
  { name: 'task_success', binary: true, higherIsBetter: true, value: (facts) => bit(facts.success) },
  { name: 'selection_accuracy', binary: true, higherIsBetter: true, value: (facts) => bit(facts.selection) },
  { name: 'argument_correctness', binary: true, higherIsBetter: true, value: (facts) => bit(facts.argumentCorrect) },
  {
    name: 'argument_validity',
    binary: false,
    higherIsBetter: true,
    value: (facts) => (facts.checkedProposals === 0 ? null : facts.validProposals / facts.checkedProposals),
  },
  {
    name: 'recovery_rate',
    binary: false,
    higherIsBetter: true,
    value: (facts) => (facts.recoverySeen === 0 ? null : facts.recoveryGood / facts.recoverySeen),
  },
  { name: 'unsafe_proposals', binary: false, higherIsBetter: false, value: (facts) => facts.unsafeProposals },
  { name: 'unnecessary_calls', binary: false, higherIsBetter: false, value: (facts) => facts.unnecessaryCalls },
];

/** Significance level of the verdicts. */
export const ALPHA = 0.05;

export interface CompareMetricOptions {
  seed?: number;
  iterations?: number;
}

/**
 * Compare one metric over pairs. Rates and the difference are means over
 * tasks of each task's mean over its paired trials (equal to the plain
 * rates when every task has the same number of pairs). The bootstrap
 * resamples tasks — trials of one task are correlated — or trials when
 * there is a single task. Verdict: better/worse only when the interval
 * excludes 0 and, for a 0/1 metric, McNemar's p < 0.05.
 */
export function compareMetric(
  definition: PairedMetricDefinition,
  pairs: readonly TrialPair[],
  options: CompareMetricOptions = {},
): ComparedMetric {
  const perTask = new Map<string, { a: number; b: number; n: number }>();
  const trialA: number[] = [];
  const trialB: number[] = [];
  let discordantB = 0;
  let discordantC = 0;
  for (const pair of pairs) {
    const a = definition.value(pair.a.facts!);
    const b = definition.value(pair.b.facts!);
    if (a === null || b === null) continue;
    trialA.push(a);
    trialB.push(b);
    if (definition.binary) {
      if (a === 1 && b === 0) discordantB += 1;
      if (a === 0 && b === 1) discordantC += 1;
    }
    const task = perTask.get(pair.taskKey) ?? { a: 0, b: 0, n: 0 };
    task.a += a;
    task.b += b;
    task.n += 1;
    perTask.set(pair.taskKey, task);
  }
  const base = {
    metric: definition.name,
    binary: definition.binary,
    higher_is_better: definition.higherIsBetter,
    n: trialA.length,
    tasks: perTask.size,
  };
  if (trialA.length === 0) {
    return {
      ...base,
      a: null,
      b: null,
      difference: null,
      low: null,
      high: null,
      resampled: null,
      mcnemar: null,
      mde: null,
      verdict: 'no data',
    };
  }
  const tasks = [...perTask.values()];
  const byTasks = tasks.length >= 2;
  const vectorA = byTasks ? tasks.map((task) => task.a / task.n) : trialA;
  const vectorB = byTasks ? tasks.map((task) => task.b / task.n) : trialB;
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const interval = pairedBootstrap(vectorA, vectorB, { seed: options.seed, iterations: options.iterations });
  const rateA = mean(vectorA);
  const mcnemar = definition.binary
    ? { b: discordantB, c: discordantC, p: mcnemarExact(discordantB, discordantC) }
    : null;
  const discordance = (discordantB + discordantC) / trialA.length;
  // Infinite (too few pairs to detect anything) is written as null.
  const mdeValue = definition.binary
    ? minimumDetectableEffect(trialA.length, rateA, discordance > 0 ? { discordantRate: discordance } : {})
    : null;
  const mde = mdeValue !== null && Number.isFinite(mdeValue) ? mdeValue : null;
  const excludesZero = interval.low > 0 || interval.high < 0;
  const significant = excludesZero && (mcnemar === null || mcnemar.p < ALPHA);
  const improved = definition.higherIsBetter ? interval.difference > 0 : interval.difference < 0;
  const verdict: CompareVerdict = significant ? (improved ? 'better' : 'worse') : 'no detectable change';
  return {
    ...base,
    a: rateA,
    b: mean(vectorB),
    difference: interval.difference,
    low: interval.low,
    high: interval.high,
    resampled: byTasks ? 'tasks' : 'trials',
    mcnemar,
    mde,
    verdict,
  };
}
