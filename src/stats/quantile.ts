/**
 * Sample quantile of already sorted (ascending) values by linear
 * interpolation between order statistics: Hyndman & Fan (1996) type 7, the
 * default of R's quantile() and numpy.quantile().
 *
 *   h = (n − 1) q,  Q(q) = x[⌊h⌋] + (h − ⌊h⌋) (x[⌊h⌋ + 1] − x[⌊h⌋])
 *
 * Returns NaN for an empty input; q must lie in [0, 1].
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`q must be within [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lower = Math.floor(h);
  const fraction = h - lower;
  if (fraction === 0) return sorted[lower];
  const below = sorted[lower];
  const above = sorted[lower + 1];
  // Equal neighbours return exactly that value (below + f·0 would anyway, but ±Infinity would give NaN).
  return below === above ? below : below + fraction * (above - below);
}
