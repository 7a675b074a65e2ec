/** z_{0.975}, the two-sided 95% normal critical value (AS 241 at p = 0.975). */
export const Z_95 = 1.959963984540054;

/**
 * Wilson score interval for a binomial proportion, without continuity
 * correction (Wilson 1927; method 3 in Newcombe 1998):
 *
 *   centre = (x + z²/2) / (n + z²)
 *   half   = z / (n + z²) · √(x(n − x)/n + z²/4)
 *
 * Unlike the Wald interval it stays inside [0, 1] and has sensible width at
 * x = 0 and x = n, which matter here (a surface often gets 0 or all of a
 * small task set right). n = 0 gives [0, 1]: no information.
 * `successes` may be fractional (e.g. averaged credit) but must lie in [0, n].
 */
export function wilsonInterval(successes: number, n: number, z: number = Z_95): [number, number] {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`n must be a non-negative number, got ${n}`);
  if (!Number.isFinite(successes) || successes < 0 || successes > n) {
    throw new RangeError(`successes must be within [0, n], got ${successes} of ${n}`);
  }
  if (!Number.isFinite(z) || z < 0) throw new RangeError(`z must be a non-negative number, got ${z}`);
  if (n === 0) return [0, 1];

  const z2 = z * z;
  const denominator = n + z2;
  const centre = (successes + z2 / 2) / denominator;
  const half = (z / denominator) * Math.sqrt((successes * (n - successes)) / n + z2 / 4);
  // At x = 0 (x = n) the bound is exactly 0 (1); rounding in centre − half must not say otherwise.
  const low = successes === 0 ? 0 : Math.max(0, centre - half);
  const high = successes === n ? 1 : Math.min(1, centre + half);
  return [low, high];
}
