import type { Distribution } from '../spec/index.ts';
import { createRandom, quantile } from '../stats/index.ts';

/** Values kept exactly up to this many; beyond it a uniform sample of this size. */
export const RESERVOIR_CAPACITY = 10_000;

/**
 * A bounded sample of a stream of numbers (Vitter's algorithm R), seeded so
 * the same run gives the same percentiles. Exact while fewer than
 * `capacity` values were seen; mean and total are always exact.
 */
export class Reservoir {
  readonly #values: number[] = [];
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
    if (this.#values.length < this.#capacity) {
      this.#values.push(value);
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
    const sorted = Float64Array.from(this.#values).sort();
    return { mean: this.#total / this.#seen, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), total: this.#total, n: this.#seen };
  }
}
