import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { connorSampleSize, minimumDetectableEffect, normalQuantile } from '../../src/stats/index.ts';

const Z_ALPHA = 1.959963984540054; // z_{0.975}
const Z_POWER = 0.8416212335729143; // z_{0.8}

/** Connor (1987) sample size, written out here independently of the code under test. */
function connor(delta: number, psi: number, zAlpha = Z_ALPHA, zPower = Z_POWER): number {
  return (zAlpha * Math.sqrt(psi) + zPower * Math.sqrt(psi - delta * delta)) ** 2 / delta ** 2;
}

describe('connorSampleSize', () => {
  it('gives n = 154.599 for δ = 0.1, ψ = 0.2 (α = 0.05, power 0.8)', () => {
    // By hand: (1.95996·√0.2 + 0.84162·√0.19)² / 0.01 = (0.876523 + 0.366858)² / 0.01;
    // mpmath at 40 digits: 154.59856956021107.
    expect(connorSampleSize(0.1, 0.2, Z_ALPHA, Z_POWER)).toBeCloseTo(154.59856956021107, 10);
  });
});

describe('minimumDetectableEffect', () => {
  it('matches an independent bisection of Connor’s equation (mpmath, 40 digits, 200 halvings)', () => {
    // δ solving n = connor(δ, max(ψ, δ)), computed in Python/mpmath by bisection.
    const reference: [number, number, number][] = [
      [100, 0.2, 0.1238193314844138],
      [50, 0.5, 0.2736029513839203],
      [200, 0.02, 0.038783996659100672], // δ > ψ: all discordance one way
      [200, 0, 0.038783996659100672],
      [400, 0.32, 0.079007476390849403],
      [1000, 0.1, 0.027982836304473524],
      [10, 0.3, 0.61583771709691162],
    ];
    for (const [n, psi, delta] of reference) {
      expect(Math.abs(minimumDetectableEffect(n, 0.5, { discordantRate: psi }) - delta)).toBeLessThan(1e-12);
    }
    // α = 0.01, power 0.9, n = 500, ψ = 0.15
    expect(
      Math.abs(
        minimumDetectableEffect(500, 0.5, { alpha: 0.01, power: 0.9, discordantRate: 0.15 }) - 0.066482321107885205,
      ),
    ).toBeLessThan(1e-12);
  });

  it('defaults the discordance to 2p(1 − p), the rate at which two independent arms disagree', () => {
    // p = 0.3: ψ = 0.42; mpmath bisection gives 0.16412095038166886 for n = 120.
    expect(Math.abs(minimumDetectableEffect(120, 0.3) - 0.16412095038166886)).toBeLessThan(1e-12);
    expect(minimumDetectableEffect(120, 0.3)).toBe(minimumDetectableEffect(120, 0.3, { discordantRate: 0.42 }));
  });

  it('approaches the two-independent-proportions figure (z_a + z_b)√(2p(1−p)/n) for large n', () => {
    for (const p of [0.1, 0.5, 0.8]) {
      const n = 1e6;
      const approximation = (Z_ALPHA + Z_POWER) * Math.sqrt((2 * p * (1 - p)) / n);
      expect(Math.abs(minimumDetectableEffect(n, p) / approximation - 1)).toBeLessThan(1e-3);
    }
  });

  it('solves Connor’s equation exactly (round trip) for any n and discordance', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 100_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, psi) => {
        const delta = minimumDetectableEffect(n, 0.5, { discordantRate: psi });
        expect(delta).toBeGreaterThan(0);
        expect(delta).toBeLessThanOrEqual(1);
        expect(Math.abs(connor(delta, Math.max(psi, delta)) / n - 1)).toBeLessThan(1e-9);
      }),
    );
  });

  it('falls as n grows and rises with the discordance', () => {
    expect(minimumDetectableEffect(400, 0.5)).toBeLessThan(minimumDetectableEffect(100, 0.5));
    expect(minimumDetectableEffect(100, 0.5, { discordantRate: 0.1 })).toBeLessThan(
      minimumDetectableEffect(100, 0.5, { discordantRate: 0.4 }),
    );
  });

  it('is Infinity when n < z² (no difference up to 1 is detectable) and at n = 0', () => {
    expect(minimumDetectableEffect(3, 0.5)).toBe(Number.POSITIVE_INFINITY);
    expect(minimumDetectableEffect(0, 0.5)).toBe(Number.POSITIVE_INFINITY);
    // n = 4 ≥ z² = 3.84: finite, just under 1 (mpmath: 0.99796174351384326)
    expect(Math.abs(minimumDetectableEffect(4, 0.5) - 0.99796174351384326)).toBeLessThan(1e-12);
  });

  it('uses the normal quantiles of α and power', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(Z_ALPHA, 15);
    expect(() => minimumDetectableEffect(100, 0.5, { power: 0.3 })).toThrow(RangeError);
    expect(() => minimumDetectableEffect(100, 1.5)).toThrow(RangeError);
    expect(() => minimumDetectableEffect(100, 0.5, { alpha: 0 })).toThrow(RangeError);
    expect(() => minimumDetectableEffect(100, 0.5, { discordantRate: 2 })).toThrow(RangeError);
  });
});
