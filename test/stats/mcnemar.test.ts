import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mcnemarExact } from '../../src/stats/index.ts';
import { bigLowerTailCount, bigRatio, relativeError } from './exact.ts';

/** 2 · Σ_{i ≤ min(b,c)} C(b+c, i) / 2^(b+c), capped at 1, in exact integer arithmetic. */
function exactMcNemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  return Math.min(1, bigRatio(2n * bigLowerTailCount(n, Math.min(b, c)), 1n << BigInt(n)));
}

describe('mcnemarExact', () => {
  it('matches p-values computed by hand', () => {
    // (1, 8): 2 · (C(9,0) + C(9,1)) / 2^9 = 2 · 10/512
    expect(mcnemarExact(1, 8)).toBe(0.0390625);
    // (0, 5): 2 · 1/32
    expect(mcnemarExact(0, 5)).toBe(0.0625);
    // (3, 3): the observed split is the most likely one
    expect(mcnemarExact(3, 3)).toBe(1);
    // (2, 9): 2 · (1 + 11 + 55) / 2048
    expect(mcnemarExact(2, 9)).toBe(0.0654296875);
    // (7, 3): 2 · (1 + 10 + 45 + 120) / 1024
    expect(mcnemarExact(7, 3)).toBe(0.34375);
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(0, 1)).toBe(1);
  });

  it('matches scipy.stats.binomtest(min(b,c), b+c, 0.5).pvalue (scipy 1.17.1) for larger counts', () => {
    // The large cases are also checked against exact rationals (Python fractions) — see the next test.
    const scipy: [number, number, number][] = [
      [10, 25, 0.016673847800120715],
      [100, 150, 0.0018833009350761602],
      [40, 20, 0.01348929373119186],
      [1000, 1100, 0.03072070786424249],
      [0, 1000, 1.8665272370064378e-301],
    ];
    for (const [b, c, p] of scipy) expect(relativeError(mcnemarExact(b, c), p)).toBeLessThan(1e-11);
  });

  it('is exact to 1e-13 for tens of thousands of discordant pairs (log space)', () => {
    for (const [b, c] of [
      [1000, 1100],
      [5000, 5300],
      [20000, 20500],
      [0, 1000],
      [30, 1200],
    ] as const) {
      expect(relativeError(mcnemarExact(b, c), exactMcNemar(b, c))).toBeLessThan(1e-13);
    }
    // Python: 2*sum(comb(40500, i) for i in range(20001)) / 2**40500 = 0.01315382511314382691...
    expect(relativeError(mcnemarExact(20000, 20500), 0.01315382511314382691)).toBeLessThan(1e-13);
  });

  it('agrees with the exact computation on random counts and is symmetric in b, c', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), (b, c) => {
        const p = mcnemarExact(b, c);
        expect(relativeError(p, exactMcNemar(b, c))).toBeLessThan(1e-12);
        expect(mcnemarExact(c, b)).toBe(p);
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects counts that are not counts', () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(Number.NaN, 3)).toThrow(RangeError);
  });
});
