import type { CompareDecision, ComparedMetric, CompareSection, Comparison } from '../spec/index.ts';
import { moreTasksToDetect } from '../stats/index.ts';

/**
 * The decision a revision review leads with, from the figures compare.ts
 * computed (nothing is re-estimated here): ship only when task success
 * improves on train and on held-out with no metric detectably worse;
 * "likely overfit" when train improves and held-out does not; otherwise
 * no detectable change, with how many more tasks it would take to see the
 * observed difference at α 0.05 and power 0.8.
 */

/** Metrics whose detectable worsening blocks a "ship". */
const GUARDED = ['task_success', 'selection_accuracy', 'argument_correctness', 'unsafe_proposals'];

function metricOf(comparison: Comparison, split: string, name: string): ComparedMetric | undefined {
  return section(comparison, split)?.metrics.find((metric) => metric.metric === name);
}

function section(comparison: Comparison, split: string): CompareSection | undefined {
  return comparison.sections.find((entry) => entry.split === split && entry.kind === 'all');
}

/** The decision of one comparison. */
export function decide(comparison: Comparison): CompareDecision {
  const worse = ['train', 'heldout'].flatMap((split) =>
    GUARDED.filter((name) => metricOf(comparison, split, name)?.verdict === 'worse').map((name) => `${split}/${name}`),
  );
  const train = metricOf(comparison, 'train', 'task_success');
  const heldout = metricOf(comparison, 'heldout', 'task_success');
  const base = { worse, needed: null };
  if (comparison.aa) return { ...base, outcome: 'aa' };
  const has = (metric: ComparedMetric | undefined) => metric !== undefined && metric.verdict !== 'no data';
  if (!has(train) && !has(heldout)) return { ...base, outcome: 'no-data' };
  if (worse.length > 0) return { ...base, outcome: 'regression' };
  const better = (metric: ComparedMetric | undefined) => metric?.verdict === 'better';
  if (better(train) && better(heldout)) return { ...base, outcome: 'ship' };
  if (better(train) && !has(heldout)) return { ...base, outcome: 'train-only' };
  if (better(train)) return { ...base, outcome: 'overfit' };
  if (better(heldout)) return { ...base, outcome: 'heldout-only' };
  // Neither split moved detectably: say what it would take to see the larger observed change.
  const candidates = [train, heldout].filter((metric): metric is ComparedMetric => has(metric));
  const largest = candidates.sort((left, right) => Math.abs(right.difference ?? 0) - Math.abs(left.difference ?? 0))[0];
  const split = largest === train ? 'train' : 'heldout';
  const more = largest ? moreTasksToDetect(largest) : null;
  return {
    ...base,
    outcome: 'no-change',
    needed: more && largest?.difference ? { split, difference: largest.difference, ...more } : null,
  };
}
