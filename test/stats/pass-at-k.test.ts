import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { combinations } from 'simple-statistics';
import { countFlips, flipRate, meanOverTasks, passAtK, passHatK } from '../../src/stats/index.ts';
import { meanOverTasksSeries, passAtKSeries, passHatKSeries } from '../../src/stats/pass-at-k.ts';
import { bigChoose, bigRatio } from './exact.ts';

/** By enumeration: of all k-subsets of n trials (the first c successful), the share with any / all successes. */
function enumerate(n: number, c: number, k: number): { any: number; all: number } {
  const trials = Array.from({ length: n }, (_, i) => i);
  const subsets = combinations(trials, k);
  let any = 0;
  let all = 0;
  for (const subset of subsets) {
    const successes = subset.filter((i) => i < c).length;
    if (successes > 0) any++;
    if (successes === k) all++;
  }
  return { any: any / subsets.length, all: all / subsets.length };
}

describe('passAtK and passHatK', () => {
  it('match hand values', () => {
    // pass^2 for n = 5, c = 3: C(3,2)/C(5,2) = 3/10
    expect(passHatK(5, 3, 2)).toBeCloseTo(0.3, 15);
    // pass@2 for n = 5, c = 3: 1 − C(2,2)/C(5,2) = 9/10
    expect(passAtK(5, 3, 2)).toBeCloseTo(0.9, 15);
    // k = 1: both are c/n
    expect(passAtK(7, 3, 1)).toBeCloseTo(3 / 7, 15);
    expect(passHatK(7, 3, 1)).toBeCloseTo(3 / 7, 15);
    // n = 200, c = 1, k = 100: 1 − C(199,100)/C(200,100) = 1 − 100/200
    expect(passAtK(200, 1, 100)).toBeCloseTo(0.5, 14);
    // the ends
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 3, 3)).toBe(1); // n − c < k: every draw of 3 contains a success
    expect(passHatK(5, 2, 3)).toBe(0);
    expect(passHatK(5, 5, 5)).toBe(1);
  });

  it('equal the share of k-subsets found by enumerating them (n ≤ 9)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.nat(), fc.nat(), (n, cSeed, kSeed) => {
        const c = cSeed % (n + 1);
        const k = 1 + (kSeed % n);
        const { any, all } = enumerate(n, c, k);
        expect(Math.abs(passAtK(n, c, k) - any)).toBeLessThan(1e-14);
        expect(Math.abs(passHatK(n, c, k) - all)).toBeLessThan(1e-14);
      }),
      { numRuns: 300 },
    );
  });

  it('equal the closed forms in exact BigInt arithmetic for large n', () => {
    for (const [n, c, k] of [
      [1000, 10, 100],
      [1000, 990, 100],
      [500, 250, 25],
      [100, 37, 50],
    ] as const) {
      const atK = 1 - bigRatio(bigChoose(n - c, k), bigChoose(n, k));
      const hatK = bigRatio(bigChoose(c, k), bigChoose(n, k));
      expect(Math.abs(passAtK(n, c, k) - atK)).toBeLessThan(1e-12);
      expect(Math.abs(passHatK(n, c, k) - hatK)).toBeLessThan(1e-12 * Math.max(hatK, 1e-300) + 1e-300);
    }
  });

  it('reject k outside [1, n] and c outside [0, n]', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
    expect(() => passAtK(3, 1, 0)).toThrow(RangeError);
    expect(() => passHatK(3, 4, 1)).toThrow(RangeError);
    expect(() => passHatK(0, 0, 1)).toThrow(RangeError);
  });
});

describe('meanOverTasks', () => {
  it('averages the per-task estimate, leaving out tasks with fewer than k trials', () => {
    const tasks = [
      { n: 5, c: 3 },
      { n: 5, c: 0 },
      { n: 2, c: 2 },
    ];
    // k = 2: (3/10 + 0 + 1) / 3
    expect(meanOverTasks(tasks, 2, passHatK)).toBeCloseTo(1.3 / 3, 15);
    // k = 3: the n = 2 task has no estimate; (C(3,3)/C(5,3) + 0) / 2 = 0.05
    expect(meanOverTasks(tasks, 3, passHatK)).toBeCloseTo(0.05, 15);
    // pass@3: the c = 3 task has n − c = 2 < 3 failures, so any 3 draws include a success (1); the c = 0 task is 0
    expect(meanOverTasks(tasks, 3, passAtK)).toBe(0.5);
    expect(meanOverTasks([], 1, passAtK)).toBeNaN();
    expect(meanOverTasks([{ n: 1, c: 1 }], 2, passAtK)).toBeNaN();
  });
});

describe('series over k = 1..maxK', () => {
  it('give exactly the per-k values (same floating-point products and sums)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.nat(), fc.nat(), (n, cSeed, kSeed) => {
        const c = cSeed % (n + 1);
        const maxK = kSeed % (n + 1);
        const hat = passHatKSeries(n, c, maxK);
        const at = passAtKSeries(n, c, maxK);
        expect(hat).toHaveLength(maxK);
        for (let k = 1; k <= maxK; k++) {
          expect(Object.is(hat[k - 1], passHatK(n, c, k))).toBe(true);
          expect(Object.is(at[k - 1], passAtK(n, c, k))).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('pass^k series matches hand values, including 0 once k > c', () => {
    // n = 5, c = 3: pass^1 = 3/5, pass^2 = 3/10, pass^3 = 1/10, then 0
    const series = passHatKSeries(5, 3, 5);
    expect(series[0]).toBeCloseTo(0.6, 15);
    expect(series[1]).toBeCloseTo(0.3, 15);
    expect(series[2]).toBeCloseTo(0.1, 15);
    expect(series.slice(3)).toEqual([0, 0]);
    expect(passHatKSeries(5, 3, 0)).toEqual([]);
    expect(() => passHatKSeries(3, 1, 4)).toThrow(RangeError);
  });

  it('meanOverTasksSeries equals meanOverTasks for every k, tasks with fewer trials left out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 80 }), fc.nat()), { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 0, max: 90 }),
        (pairs, maxK) => {
          const tasks = pairs.map(([n, cSeed]) => ({ n, c: cSeed % (n + 1) }));
          for (const [series, estimator] of [
            [passHatKSeries, passHatK],
            [passAtKSeries, passAtK],
          ] as const) {
            const means = meanOverTasksSeries(tasks, maxK, series);
            expect(means).toHaveLength(maxK);
            for (let k = 1; k <= maxK; k++)
              expect(Object.is(means[k - 1], meanOverTasks(tasks, k, estimator))).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('flipRate and countFlips', () => {
  it('count tasks whose trials disagree among tasks with at least two trials', () => {
    const tasks = [
      { n: 5, c: 3 },
      { n: 5, c: 0 },
      { n: 5, c: 5 },
      { n: 1, c: 1 },
      { n: 2, c: 1 },
    ];
    expect(countFlips(tasks)).toEqual({ flipped: 2, tasks: 4 });
    expect(flipRate(tasks)).toBe(0.5);
    expect(flipRate([{ n: 1, c: 0 }])).toBeNaN();
    expect(flipRate([])).toBeNaN();
  });
});
