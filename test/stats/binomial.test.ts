import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { binomialCdfHalf, binomialTwoSidedP, logBinomialCdfHalf, logChoose } from '../../src/stats/index.ts';
import { bigChoose, bigLog, bigLowerTailCount, bigRatio, relativeError } from './exact.ts';

describe('logChoose', () => {
  // Sizes straddle the branches of the Stirling-error series (15, 35, 80, 500).
  const cases: [number, number][] = [
    [1, 1],
    [2, 1],
    [5, 2],
    [10, 3],
    [15, 7],
    [16, 8],
    [30, 1],
    [35, 17],
    [36, 18],
    [80, 40],
    [81, 3],
    [100, 50],
    [500, 250],
    [501, 17],
    [1000, 1],
    [1000, 999],
    [10000, 5000],
    [20000, 123],
  ];
  it.each(cases)('ln C(%i, %i) equals the log of the exact BigInt coefficient', (n, k) => {
    const exact = bigLog(bigChoose(n, k));
    expect(Math.abs(logChoose(n, k) - exact)).toBeLessThanOrEqual(1e-14 * Math.max(1, exact));
  });

  it('matches C(10, 3) = 120 by hand, and the ends are 0', () => {
    expect(Math.abs(logChoose(10, 3) - Math.log(120))).toBeLessThan(1e-14);
    expect(logChoose(7, 0)).toBe(0);
    expect(logChoose(7, 7)).toBe(0);
    expect(logChoose(0, 0)).toBe(0);
    expect(logChoose(3, 4)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('rejects non-integers', () => {
    expect(() => logChoose(5.5, 2)).toThrow(RangeError);
    expect(() => logChoose(5, -1)).toThrow(RangeError);
  });
});

describe('Binomial(n, 1/2) tails', () => {
  it('P(X ≤ 1) for n = 9 is 10/512 by hand', () => {
    expect(binomialCdfHalf(1, 9)).toBe(10 / 512);
    expect(binomialCdfHalf(9, 9)).toBe(1);
    expect(binomialCdfHalf(-1, 9)).toBe(0);
  });

  it('agrees with exact BigInt sums for every k of every n up to 150', () => {
    let worst = 0;
    for (let n = 1; n <= 150; n++) {
      const denominator = 1n << BigInt(n);
      let coefficient = 1n;
      let count = 0n;
      for (let k = 0; k < n; k++) {
        if (k > 0) coefficient = (coefficient * BigInt(n - k + 1)) / BigInt(k);
        count += coefficient;
        const exact = bigRatio(count, denominator);
        worst = Math.max(worst, relativeError(binomialCdfHalf(k, n), exact));
        expect(Math.abs(logBinomialCdfHalf(k, n) - Math.log(exact))).toBeLessThan(
          1e-14 * Math.max(1, -Math.log(exact)),
        );
      }
    }
    expect(worst).toBeLessThan(1e-13);
  });

  it('agrees with exact BigInt sums on random (n, k) up to n = 2000', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const k = Math.min(n - 1, Math.floor(share * n));
        const exact = bigRatio(bigLowerTailCount(n, k), 1n << BigInt(n));
        // A dense sweep of n ≤ 2000 found at most 6.3e-13, at p ≈ 1e-241.
        expect(relativeError(binomialCdfHalf(k, n), exact)).toBeLessThan(2e-12);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps its relative precision for large n, near the median and deep in the tail', () => {
    // Near the median (where decisions are made) to 1e-14.
    for (const [n, k] of [
      [5000, 2400],
      [20000, 9800],
      [40500, 20000],
      [3000, 1400],
    ] as const) {
      const exact = bigRatio(bigLowerTailCount(n, k), 1n << BigInt(n));
      expect(relativeError(binomialCdfHalf(k, n), exact)).toBeLessThan(1e-14);
    }
    // Deep tails (p down to 1e-80) to 1e-12: ln P is large there, and a double's log carries ~|ln P|·1e-16.
    for (const [n, k] of [
      [1000, 300],
      [3000, 1000],
      [100, 1],
    ] as const) {
      const exact = bigRatio(bigLowerTailCount(n, k), 1n << BigInt(n));
      expect(relativeError(binomialCdfHalf(k, n), exact)).toBeLessThan(1e-12);
    }
    expect(binomialCdfHalf(0, 1000)).toBe(2 ** -1000);
  });

  it('binomialTwoSidedP doubles the smaller tail and caps at 1', () => {
    expect(binomialTwoSidedP(1, 9)).toBe(0.0390625); // 2 · 10/512
    expect(binomialTwoSidedP(8, 9)).toBe(0.0390625);
    expect(binomialTwoSidedP(5, 10)).toBe(1);
    expect(binomialTwoSidedP(4, 9)).toBe(1); // 2 · 1/2
    expect(binomialTwoSidedP(0, 0)).toBe(1);
    expect(() => binomialTwoSidedP(3, 2)).toThrow(RangeError);
  });
});
