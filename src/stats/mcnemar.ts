import { binomialTwoSidedP } from './binomial.ts';

/**
 * Exact two-sided McNemar test for paired binary outcomes.
 *
 * b = pairs where only the first arm succeeded, c = pairs where only the
 * second did (the discordant pairs; concordant pairs carry no information).
 * Under H0 each discordant pair goes either way with probability 1/2, so
 * p = min(1, 2 · P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2)
 * (McNemar 1947; exact form as in R's exact2x2::mcnemar.exact and
 * binom.test(b, b + c)). b + c = 0 gives 1. Stable for large b + c: the tail
 * is computed in log space.
 */
export function mcnemarExact(b: number, c: number): number {
  for (const [name, value] of [
    ['b', b],
    ['c', c],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`${name} must be a non-negative integer count of discordant pairs, got ${value}`);
    }
  }
  return binomialTwoSidedP(Math.min(b, c), b + c);
}
