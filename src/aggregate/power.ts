import type { ComparedMetric } from '../spec/index.ts';
import { connorSampleSize, minimumDetectableEffect, normalQuantile } from '../stats/index.ts';
import { ALPHA } from './compare-metric.ts';

/** Power of the paired comparisons (α = ALPHA two-sided, McNemar, normal approximation). */
export const POWER = 0.8;

/** What a paired 0/1 comparison could detect, and what it would need to detect `target`. */
export interface PowerCheck {
  /** Pairs compared. */
  n: number;
  /** The smallest difference detectable with these pairs; null = none up to 1 (too few pairs). */
  detectable: number | null;
  /** The difference it should detect. */
  target: number;
  /** Pairs needed to detect `target` at the same discordance (rounded up). */
  pairsNeeded: number;
  /** detectable is null or above target. */
  underpowered: boolean;
}

/**
 * Power of a compared binary metric against a target difference. The
 * discordance ψ is the observed share of discordant pairs, (b + c)/n, or
 * 2p(1 − p) at the A rate when no pair differs (as `compareMetric` uses for
 * its MDE). Pairs needed: Connor's n for δ = target at ψ, with ψ raised to δ
 * when it is smaller (a difference of δ needs at least δ discordance).
 */
export function powerFor(metric: Pick<ComparedMetric, 'n' | 'a' | 'mcnemar'>, target: number): PowerCheck {
  const rate = metric.a ?? 0;
  const observed = metric.mcnemar && metric.n > 0 ? (metric.mcnemar.b + metric.mcnemar.c) / metric.n : 0;
  const psi = observed > 0 ? observed : 2 * rate * (1 - rate);
  const mde = minimumDetectableEffect(
    metric.n,
    rate,
    observed > 0 ? { discordantRate: observed, power: POWER, alpha: ALPHA } : { power: POWER, alpha: ALPHA },
  );
  const detectable = Number.isFinite(mde) ? mde : null;
  const zAlpha = normalQuantile(1 - ALPHA / 2);
  const zPower = normalQuantile(POWER);
  const pairsNeeded = Math.ceil(connorSampleSize(target, Math.max(psi, target), zAlpha, zPower) - 1e-9);
  return {
    n: metric.n,
    detectable,
    target,
    pairsNeeded,
    underpowered: detectable === null || detectable > target + 1e-12,
  };
}
