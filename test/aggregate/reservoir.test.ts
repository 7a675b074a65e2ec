import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Reservoir } from '../../src/aggregate/index.ts';
import { createRandom, quantile } from '../../src/stats/index.ts';

/** The distribution by sorting every value (the definition), for streams that fit the reservoir. */
function bySorting(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
}

/** The reservoir's percentiles are those of `kept`, exactly (=== so that a selected −0 equals a sorted 0: the same JSON). */
function expectPercentilesOf(reservoir: Reservoir, kept: number[], seen: number): void {
  const expected = bySorting(kept);
  const distribution = reservoir.distribution();
  expect(distribution.p50 === expected.p50).toBe(true);
  expect(distribution.p95 === expected.p95).toBe(true);
  expect(distribution.n).toBe(seen);
}

describe('Reservoir', () => {
  it('percentiles equal type-7 quantiles of the sorted values (selection, not sorting)', () => {
    const stream = fc.oneof(
      fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 300 }), // many ties
      fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
      fc.integer({ min: 1, max: 300 }).map((n) => Array.from({ length: n }, (_, index) => index)), // already sorted
      fc.integer({ min: 1, max: 300 }).map((n) => Array.from({ length: n }, (_, index) => n - index)), // reversed
    );
    fc.assert(
      fc.property(stream, (values) => {
        const reservoir = new Reservoir(1_000, 7);
        for (const value of values) reservoir.add(value);
        expectPercentilesOf(reservoir, values, values.length);
      }),
      { numRuns: 500 },
    );
  });

  it('matches hand-computed values and leaves the kept sample as it was', () => {
    const reservoir = new Reservoir(100, 1);
    for (const value of [10, 1, 7, 3, 5]) reservoir.add(value);
    // sorted 1 3 5 7 10: p50 = 5; p95: h = 3.8 → 7 + 0.8 × 3 = 9.4
    const distribution = reservoir.distribution();
    expect(distribution).toMatchObject({ mean: 5.2, p50: 5, total: 26, n: 5 });
    expect(distribution.p95).toBeCloseTo(9.4, 12);
    // Asking twice gives the same answer (the selection works on a copy).
    expect(reservoir.distribution()).toEqual(reservoir.distribution());
    expect(new Reservoir().distribution()).toEqual({ mean: null, p50: null, p95: null, total: 0, n: 0 });
  });

  it('keeps the same sample as algorithm R over a plain array once the stream is past its capacity', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 1_000 }),
        (capacity, values, seed) => {
          const reservoir = new Reservoir(capacity, seed);
          const random = createRandom(seed);
          const kept: number[] = [];
          values.forEach((value, index) => {
            reservoir.add(value);
            if (kept.length < capacity) kept.push(value);
            else {
              const slot = Math.floor(random() * (index + 1));
              if (slot < capacity) kept[slot] = value;
            }
          });
          expectPercentilesOf(reservoir, kept, values.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
