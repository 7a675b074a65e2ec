import type { Distribution } from '../spec/index.ts';
import { createRandom } from '../stats/index.ts';

/** Values kept exactly up to this many; beyond it a uniform sample of this size. */
export const RESERVOIR_CAPACITY = 10_000;

/**
 * A bounded sample of a stream of numbers (Vitter's algorithm R), seeded so
 * the same run gives the same percentiles. Exact while fewer than
 * `capacity` values were seen; mean and total are always exact.
 */
export class Reservoir {
  /**
   * The kept values (the first `#kept`), in a typed array grown by doubling:
   * its storage is outside V8's heap, so a reservoir filling up through a
   * run's trials (three per summary group, up to 10,000 values each) is
   * never copied by the young-generation collections, nor promoted, as
   * the growing `number[]` was at each step of its growth.
   */
  #values = new Float64Array(16);
  #kept = 0;
  readonly #capacity: number;
  readonly #random: () => number;
  #seen = 0;
  #total = 0;

  constructor(capacity = RESERVOIR_CAPACITY, seed = 1) {
    this.#capacity = capacity;
    this.#random = createRandom(seed);
  }

  add(value: number): void {
    this.#seen += 1;
    this.#total += value;
    if (this.#kept < this.#capacity) {
      if (this.#kept === this.#values.length) {
        const grown = new Float64Array(Math.min(this.#capacity, 2 * this.#values.length));
        grown.set(this.#values);
        this.#values = grown;
      }
      this.#values[this.#kept] = value;
      this.#kept += 1;
      return;
    }
    const slot = Math.floor(this.#random() * this.#seen);
    if (slot < this.#capacity) this.#values[slot] = value;
  }

  get total(): number {
    return this.#total;
  }

  /** Mean, p50, p95 (type-7 quantiles of the kept values), total and count. */
  distribution(): Distribution {
    if (this.#seen === 0) return { mean: null, p50: null, p95: null, total: 0, n: 0 };
    const values = this.#values.slice(0, this.#kept);
    return {
      mean: this.#total / this.#seen,
      p50: unsortedQuantile(values, 0.5),
      p95: unsortedQuantile(values, 0.95),
      total: this.#total,
      n: this.#seen,
    };
  }
}

/**
 * `quantile(sorted, q)` (type 7) of values that are not sorted, with the same
 * result: type 7 needs only the order statistics at ⌊h⌋ and ⌊h⌋ + 1
 * (h = (n − 1)q), found by selection in O(n) on average instead of sorting
 * (a summary has three reservoirs of up to 10,000 values per group; sorting
 * them was most of `finish`). Reorders `values`; n ≥ 1.
 */
function unsortedQuantile(values: Float64Array, q: number): number {
  const h = (values.length - 1) * q;
  const lower = Math.floor(h);
  const fraction = h - lower;
  const below = select(values, lower);
  if (fraction === 0) return below;
  // After selection everything right of `lower` is ≥ it: the next order statistic is their minimum.
  let above = values[lower + 1]!;
  for (let index = lower + 2; index < values.length; index += 1) if (values[index]! < above) above = values[index]!;
  // The interpolation of stats `quantile`, term for term.
  return below === above ? below : below + fraction * (above - below);
}

/**
 * The k-th smallest value (0-based), by Hoare's quickselect: afterwards
 * nothing left of k is greater and nothing right of k is smaller.
 */
function select(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (left < right) {
    const pivot = values[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i += 1;
      while (values[j]! > pivot) j -= 1;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    // Now [left, j] ≤ pivot ≤ [i, right], and anything between j and i equals the pivot.
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return values[k]!;
  }
  return values[k]!;
}
