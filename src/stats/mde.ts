import { normalQuantile } from './normal.ts';

/** Options of the minimum-detectable-effect calculation. */
export interface MinimumDetectableEffectOptions {
  /** Two-sided significance level; default 0.05. */
  alpha?: number;
  /** Power, within [0.5, 1); default 0.8. */
  power?: number;
  /**
   * Share ψ of pairs whose outcomes differ between the two arms (b + c)/n,
   * e.g. from an A/A run. Default: 2p(1 − p), the discordance of two
   * independent arms at the baseline rate p.
   */
  discordantRate?: number;
}

/**
 * Sample size of a paired comparison by McNemar's test, normal approximation
 * (Connor 1987, Biometrics 43:207–211):
 *   n = (z_{1−α/2} √ψ + z_{power} √(ψ − δ²))² / δ²
 * for a difference δ = p10 − p01 and discordance ψ = p10 + p01 (δ ≤ ψ).
 */
export function connorSampleSize(delta: number, discordantRate: number, zAlpha: number, zPower: number): number {
  const psi = discordantRate;
  return (zAlpha * Math.sqrt(psi) + zPower * Math.sqrt(psi - delta * delta)) ** 2 / (delta * delta);
}

/**
 * Minimum detectable effect of a paired comparison with n pairs: the smallest
 * difference of rates that McNemar's test (two-sided α, normal approximation)
 * detects with the given power. Connor's formula solved for δ:
 *
 *   δ = √ψ · (z_a √n + z_b √(n + z_b² − z_a²)) / (n + z_b²),   z_a = z_{1−α/2}, z_b = z_{power}
 *
 * A difference of δ needs at least δ discordance (δ = p10 − p01 ≤ p10 + p01),
 * so when that δ exceeds ψ the alternative with ψ = δ (all discordant pairs
 * one way) is solved instead, 1 − δ = u², u = (√(n(n + z_b² − z_a²)) − z_a z_b) / (n + z_b²).
 * Infinity when n < z_a² (no difference up to 1 is detectable).
 *
 * Without a discordance estimate ψ = 2p(1 − p); to first order that is the
 * familiar (z_a + z_b) √(2p(1 − p)/n) of two independent proportions.
 * Trials of one task are usually correlated (discordance lower), so passing
 * the observed discordance gives a smaller, truer figure.
 */
export function minimumDetectableEffect(
  n: number,
  baselineRate: number,
  options: MinimumDetectableEffectOptions = {},
): number {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  if (!(n >= 0) || !Number.isFinite(n)) throw new RangeError(`n must be a non-negative number, got ${n}`);
  if (!(baselineRate >= 0 && baselineRate <= 1)) {
    throw new RangeError(`baselineRate must be within [0, 1], got ${baselineRate}`);
  }
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);
  // Below power 0.5, z_power < 0 and Connor's equation no longer has a single root.
  if (!(power >= 0.5 && power < 1)) throw new RangeError(`power must be within [0.5, 1), got ${power}`);
  const psi = options.discordantRate ?? 2 * baselineRate * (1 - baselineRate);
  if (!(psi >= 0 && psi <= 1)) throw new RangeError(`discordantRate must be within [0, 1], got ${psi}`);

  const zAlpha = normalQuantile(1 - alpha / 2);
  const zPower = normalQuantile(power);
  const slack = n + zPower * zPower - zAlpha * zAlpha;
  if (n === 0 || n < zAlpha * zAlpha) return Number.POSITIVE_INFINITY;

  const denominator = n + zPower * zPower;
  const delta = (Math.sqrt(psi) * (zAlpha * Math.sqrt(n) + zPower * Math.sqrt(slack))) / denominator;
  if (psi > 0 && delta <= psi) return delta;

  const u = (Math.sqrt(n * slack) - zAlpha * zPower) / denominator;
  return 1 - u * u;
}
