import { createRandom } from './random.ts';
import { quantile } from './quantile.ts';

/** Options of the paired bootstrap. */
export interface BootstrapOptions {
  /** Resamples drawn; default 2000. */
  iterations?: number;
  /** PRNG seed; default 20240501, so repeated reports agree. */
  seed?: number;
  /** Two-sided coverage of the percentile interval; default 0.95. */
  confidence?: number;
}

/** A difference of means with its bootstrap percentile interval. */
export interface BootstrapInterval {
  /** Observed mean of b[i] − a[i]. */
  difference: number;
  low: number;
  high: number;
}

const DEFAULT_ITERATIONS = 2000;
const DEFAULT_SEED = 20240501;

function differences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  if (a.length !== b.length) {
    throw new RangeError(`paired vectors must have equal length, got ${a.length} and ${b.length}`);
  }
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) d[i] = b[i] - a[i];
  return d;
}

function mean(values: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return sum / values.length;
}

/**
 * The sorted bootstrap distribution of mean(b − a): each resample draws n
 * pair indices uniformly with replacement (Efron & Tibshirani 1993, ch. 6)
 * and keeps pairs together, so within-pair correlation — the reason paired
 * designs are more sensitive — is preserved. Empty input gives an empty array.
 */
export function bootstrapDistribution(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: Omit<BootstrapOptions, 'confidence'> = {},
): Float64Array {
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  }
  const d = differences(a, b);
  const n = d.length;
  if (n === 0) return new Float64Array(0);
  const random = createRandom(options.seed ?? DEFAULT_SEED);
  const means = new Float64Array(iterations);
  for (let r = 0; r < iterations; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += d[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  return means.sort();
}

/**
 * Paired bootstrap percentile interval for the difference of two paired rate
 * vectors: difference = mean(b[i] − a[i]); [low, high] = the (1−c)/2 and
 * (1+c)/2 type-7 quantiles of the bootstrap distribution (Efron & Tibshirani
 * 1993, §13.3). Deterministic for a seed. If every difference is equal the
 * interval collapses to that value (identical vectors give exactly [0, 0]).
 * Empty vectors give NaN throughout.
 *
 * Pass per-trial outcomes (0/1) to resample trials, or per-task rates to
 * resample tasks — the latter respects the correlation of trials of one task.
 */
export function pairedBootstrap(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: BootstrapOptions = {},
): BootstrapInterval {
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  }
  const d = differences(a, b);
  if (d.length === 0) return { difference: Number.NaN, low: Number.NaN, high: Number.NaN };
  const distribution = bootstrapDistribution(a, b, options);
  const tail = (1 - confidence) / 2;
  return {
    difference: mean(d),
    low: quantile(distribution, tail),
    high: quantile(distribution, 1 - tail),
  };
}
