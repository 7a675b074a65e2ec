import { connorSampleSize } from './mde.ts';
import { normalQuantile } from './normal.ts';

/**
 * Pairs needed to detect a paired difference of rates with McNemar's test
 * (Connor 1987, two-sided α, given power) at an observed discordance ψ
 * (share of pairs whose outcomes differ). Null when the difference is 0 or
 * nothing discordant was seen (no difference is then estimable). A
 * difference needs at least that much discordance (δ = p10 − p01 ≤ p10 +
 * p01), so ψ is raised to |δ| when below it.
 */
export function pairsToDetect(
  difference: number,
  discordance: number,
  options: { alpha?: number; power?: number } = {},
): number | null {
  const delta = Math.abs(difference);
  if (delta === 0 || discordance === 0) return null;
  const psi = Math.min(1, Math.max(discordance, delta));
  const n = connorSampleSize(
    delta,
    psi,
    normalQuantile(1 - (options.alpha ?? 0.05) / 2),
    normalQuantile(options.power ?? 0.8),
  );
  return Number.isFinite(n) ? Math.ceil(n) : null;
}

/** What `moreTasksToDetect` reads of a compared metric (structurally, so stats imports nothing). */
export interface PairedCounts {
  binary: boolean;
  difference: number | null;
  /** Discordant pairs: b = A pass / B fail, c = A fail / B pass. */
  mcnemar: { b: number; c: number } | null;
  /** Pairs and the tasks they cover. */
  n: number;
  tasks: number;
}

/**
 * More tasks, at the observed trials per task, to detect a binary metric's
 * observed difference with McNemar's test at α 0.05 and power 0.8; null
 * when it cannot be said (not binary, or nothing discordant).
 */
export function moreTasksToDetect(metric: PairedCounts): { moreTasks: number; trialsPerTask: number } | null {
  if (!metric.binary || metric.difference === null || metric.mcnemar === null || metric.n === 0 || metric.tasks === 0)
    return null;
  const needed = pairsToDetect(metric.difference, (metric.mcnemar.b + metric.mcnemar.c) / metric.n);
  if (needed === null) return null;
  const trialsPerTask = metric.n / metric.tasks;
  return {
    moreTasks: Math.max(0, Math.ceil(needed / trialsPerTask) - metric.tasks),
    trialsPerTask: Math.round(trialsPerTask * 10) / 10,
  };
}
