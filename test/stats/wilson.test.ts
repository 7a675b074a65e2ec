import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { wilsonInterval, Z_95 } from '../../src/stats/index.ts';

describe('wilsonInterval', () => {
  it('reproduces Newcombe (1998), Statistics in Medicine 17:857–872, Table II, method 3 (score, no continuity correction)', () => {
    const table: [number, number, number, number][] = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0.0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, low, high] of table) {
      const [l, h] = wilsonInterval(x, n);
      expect(Math.abs(l - low)).toBeLessThan(0.00005 + 1e-12);
      expect(Math.abs(h - high)).toBeLessThan(0.00005 + 1e-12);
    }
  });

  it('matches scipy 1.17.1 binomtest(x, n).proportion_ci(method="wilson") to 1e-12', () => {
    const scipy: [number, number, number, number][] = [
      [8, 10, 0.4901624715366418, 0.9433178485456248],
      [3, 7, 0.1582198552514697, 0.7495416354723428],
      [50, 100, 0.4038315303659956, 0.5961684696340044],
      [81, 263, 0.2552885198782742, 0.36620957698280004],
      [1, 1, 0.20654931437723745, 1],
    ];
    for (const [x, n, low, high] of scipy) {
      const [l, h] = wilsonInterval(x, n);
      expect(Math.abs(l - low)).toBeLessThan(1e-12);
      expect(Math.abs(h - high)).toBeLessThan(1e-12);
    }
  });

  it('has the closed forms at x = 0 and x = n: [0, z²/(n+z²)] and [n/(n+z²), 1]', () => {
    const z2 = Z_95 * Z_95;
    for (const n of [1, 2, 10, 37, 1000]) {
      const [l0, h0] = wilsonInterval(0, n);
      expect(l0).toBe(0);
      expect(Math.abs(h0 - z2 / (n + z2))).toBeLessThan(1e-15);
      const [ln, hn] = wilsonInterval(n, n);
      expect(hn).toBe(1);
      expect(Math.abs(ln - n / (n + z2))).toBeLessThan(1e-15);
    }
    // 0/10 upper by hand: 3.841458820694124 / 13.841458820694124 = 0.27753279986288926
    expect(Math.abs(wilsonInterval(0, 10)[1] - 0.27753279986288926)).toBeLessThan(1e-15);
  });

  it('returns [0, 1] when there is no observation', () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });

  it('is mirror-symmetric, contains the estimate, stays in [0, 1], and narrows with n', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const x = Math.round(share * n);
        const [low, high] = wilsonInterval(x, n);
        const [mirrorLow, mirrorHigh] = wilsonInterval(n - x, n);
        expect(Math.abs(low - (1 - mirrorHigh))).toBeLessThan(1e-12);
        expect(Math.abs(high - (1 - mirrorLow))).toBeLessThan(1e-12);
        expect(low).toBeGreaterThanOrEqual(0);
        expect(high).toBeLessThanOrEqual(1);
        expect(low).toBeLessThanOrEqual(x / n);
        expect(high).toBeGreaterThanOrEqual(x / n);
        const [wideLow, wideHigh] = wilsonInterval(x * 4, n * 4);
        expect(wideHigh - wideLow).toBeLessThan(high - low);
      }),
    );
  });

  it('honours another z (z = 1 gives the narrower 68% interval)', () => {
    const [l, h] = wilsonInterval(8, 10, 1);
    // centre (8 + 0.5)/11, half √(1.6 + 0.25)/11, by hand
    expect(Math.abs(l - (8.5 - Math.sqrt(1.85)) / 11)).toBeLessThan(1e-15);
    expect(Math.abs(h - (8.5 + Math.sqrt(1.85)) / 11)).toBeLessThan(1e-15);
  });

  it('rejects impossible counts', () => {
    expect(() => wilsonInterval(11, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(1, Number.NaN)).toThrow(RangeError);
  });
});
