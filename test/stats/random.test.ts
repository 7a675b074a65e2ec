import { describe, expect, it } from 'vitest';
import { createRandom, xoshiro128StarStar } from '../../src/stats/index.ts';

describe('xoshiro128StarStar', () => {
  it('matches the reference C code of Blackman & Vigna (prng.di.unimi.it/xoshiro128starstar.c)', () => {
    // Output of the reference next() with s = {1, 2, 3, 4}, compiled with gcc 12.2.
    const reference = [11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849];
    const next = xoshiro128StarStar([1, 2, 3, 4]);
    expect(reference.map(() => next())).toEqual(reference);
  });

  it('refuses the all-zero state, which would only ever yield zeros', () => {
    expect(() => xoshiro128StarStar([0, 0, 0, 0])).toThrow(RangeError);
  });
});

describe('createRandom', () => {
  it('reproduces a C implementation of the same seeding and conversion (seed 42)', () => {
    // gcc 12.2: s[i] = splitmix32() from 42 (golden-ratio step, MurmurHash3 finaliser),
    // then ((next() >> 5) * 2^26 + (next() >> 6)) / 2^53, printed with %.17g.
    const reference = [
      0.66061572080016207, 0.11170196395322241, 0.079105645614491404, 0.015209237180418, 0.88068708274502538,
      0.18337301518475291,
    ];
    const random = createRandom(42);
    for (const value of reference) expect(random()).toBe(value);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    const first = createRandom(7);
    const second = createRandom(7);
    const other = createRandom(8);
    const a = Array.from({ length: 100 }, () => first());
    const b = Array.from({ length: 100 }, () => second());
    const c = Array.from({ length: 100 }, () => other());
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('stays in [0, 1) and is uniform by a chi-square test (10 bins, 100 000 draws)', () => {
    const random = createRandom(2024);
    const bins = new Array<number>(10).fill(0);
    const draws = 100_000;
    for (let i = 0; i < draws; i++) {
      const u = random();
      expect(u >= 0 && u < 1).toBe(true);
      bins[Math.floor(u * 10)]++;
    }
    const expected = draws / 10;
    const chiSquare = bins.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    // 27.88 is the 0.999 quantile of chi-square with 9 degrees of freedom.
    expect(chiSquare).toBeLessThan(27.88);
  });
});
