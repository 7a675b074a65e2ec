import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quantileSorted } from 'simple-statistics';
import { quantile } from '../../src/stats/index.ts';

describe('quantile (type 7)', () => {
  it('matches R: quantile(1:10, c(0, .1, .25, .5, .75, .9, 1)) = 1, 1.9, 3.25, 5.5, 7.75, 9.1, 10', () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const expected: [number, number][] = [
      [0, 1],
      [0.1, 1.9],
      [0.25, 3.25],
      [0.5, 5.5],
      [0.75, 7.75],
      [0.9, 9.1],
      [1, 10],
    ];
    for (const [q, value] of expected) expect(Math.abs(quantile(x, q) - value)).toBeLessThan(1e-12);
  });

  it('matches numpy docs: np.quantile([[10, 7, 4], [3, 2, 1]], 0.5) = 3.5', () => {
    expect(quantile([1, 2, 3, 4, 7, 10], 0.5)).toBe(3.5);
  });

  it('agrees with simple-statistics quantileSorted (also type 7)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, q) => {
          const sorted = Float64Array.from(values).sort();
          expect(Math.abs(quantile(sorted, q) - quantileSorted(Array.from(sorted), q))).toBeLessThan(1e-9);
        },
      ),
    );
  });

  it('handles one value, equal neighbours and typed arrays', () => {
    expect(quantile([7], 0.3)).toBe(7);
    expect(quantile(Float64Array.from([0, 0, 0]), 0.975)).toBe(0);
    expect(quantile([1, Infinity, Infinity], 0.9)).toBe(Infinity);
  });

  it('gives NaN for no data and rejects q outside [0, 1]', () => {
    expect(quantile([], 0.5)).toBeNaN();
    expect(() => quantile([1, 2], 1.2)).toThrow(RangeError);
    expect(() => quantile([1, 2], Number.NaN)).toThrow(RangeError);
  });
});
