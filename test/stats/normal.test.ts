import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalQuantile } from '../../src/stats/index.ts';
import { relativeError } from './exact.ts';

// Reference quantiles computed with mpmath 1.3.0 at 50 significant digits by
// solving ncdf(z) = p (ncdf via erfc, exact in the tails), for the double p shown.
const MPMATH: [number, string][] = [
  [1e-300, '-37.04709629936119923655'],
  [1e-100, '-21.27345356096532429418'],
  [1e-20, '-9.262340089798407579572'],
  [1e-12, '-7.034483825301131932614'],
  [1e-8, '-5.61200124417478872793'],
  [1e-5, '-4.264890793922824610234'],
  [0.001, '-3.090232306167813535358'],
  [0.01, '-2.326347874040841093075'],
  [0.025, '-1.95996398454005421178'],
  [0.05, '-1.644853626951472687952'],
  [0.0749, '-1.440238267527963663112'],
  [0.075, '-1.43953147093845593495'],
  [0.0751, '-1.438825392752539982436'],
  [0.1, '-1.281551565544600435335'],
  [0.3, '-0.5244005127080408159695'],
  [0.4, '-0.2533471031357997413247'],
  [0.6, '0.2533471031357997413247'],
  [0.8, '0.8416212335729143638036'],
  [0.9, '1.281551565544600593487'],
  [0.925, '1.439531470938456229063'],
  [0.95, '1.644853626951472284276'],
  [0.975, '1.959963984540053855604'],
  [0.99, '2.326347874040840767637'],
  [0.999, '3.090232306167813277758'],
  [0.999999999, '5.997807019601637426423'],
  [0.999999999999999, '7.941444487415978810604'],
];

describe('normalQuantile (Wichura AS 241)', () => {
  it('matches the textbook critical values to the last digit', () => {
    // z_{0.975} and z_{0.8}: the two constants of every 95%/80%-power formula.
    expect(Math.abs(normalQuantile(0.975) - 1.959963984540054)).toBeLessThan(1e-15);
    expect(Math.abs(normalQuantile(0.8) - 0.8416212335729143)).toBeLessThan(1e-15);
    expect(normalQuantile(0.5)).toBe(0);
  });

  it.each(MPMATH)('p = %s agrees with mpmath to 1e-14 relative', (p, reference) => {
    expect(relativeError(normalQuantile(p), Number(reference))).toBeLessThan(1e-14);
  });

  it('is antisymmetric about 1/2 and increasing', () => {
    fc.assert(
      // p = k / 2^40, so that 1 − p is exactly representable and the check is about the function alone.
      fc.property(fc.integer({ min: 1, max: 2 ** 39 }), (k) => {
        const p = k / 2 ** 40;
        expect(Math.abs(normalQuantile(p) + normalQuantile(1 - p))).toBeLessThan(
          1e-9 * (1 + Math.abs(normalQuantile(p))),
        );
        expect(normalQuantile(p)).toBeLessThanOrEqual(normalQuantile(Math.min(0.5, p * 1.01)));
      }),
    );
  });

  it('maps the ends to infinities and nonsense to NaN', () => {
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(normalQuantile(-0.1)).toBeNaN();
    expect(normalQuantile(1.5)).toBeNaN();
    expect(normalQuantile(Number.NaN)).toBeNaN();
  });
});
