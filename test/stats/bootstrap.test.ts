import { describe, expect, it } from 'vitest';
import { bootstrapDistribution, pairedBootstrap, quantile } from '../../src/stats/index.ts';
import { bigChoose, bigRatio } from './exact.ts';

/** The q-quantile (smallest k/n with P(K ≤ k) ≥ q) of K/n, K ~ Binomial(n, successes/n), in exact arithmetic. */
function binomialMeanQuantile(n: number, successes: number, q: number): number {
  // P(K = k) = C(n,k) s^k (n−s)^(n−k) / n^n exactly, with p = s/n.
  const total = BigInt(n) ** BigInt(n);
  let cumulative = 0;
  for (let k = 0; k <= n; k++) {
    cumulative += bigRatio(
      bigChoose(n, k) * BigInt(successes) ** BigInt(k) * BigInt(n - successes) ** BigInt(n - k),
      total,
    );
    if (cumulative >= q) return k / n;
  }
  return 1;
}

describe('pairedBootstrap', () => {
  it('gives exactly [0, 0] for identical vectors', () => {
    const a = [1, 0, 1, 1, 0, 0, 1, 0.5];
    expect(pairedBootstrap(a, a.slice())).toEqual({ difference: 0, low: 0, high: 0 });
  });

  it('collapses to the shift when every pair differs by the same amount', () => {
    const a = [0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 1];
    expect(pairedBootstrap(a, b)).toEqual({ difference: 1, low: 1, high: 1 });
    expect(pairedBootstrap(b, a)).toEqual({ difference: -1, low: -1, high: -1 });
  });

  it('is deterministic for a seed, and the seed matters', () => {
    const a = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const b = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const first = pairedBootstrap(a, b, { seed: 11 });
    expect(pairedBootstrap(a, b, { seed: 11 })).toEqual(first);
    expect(pairedBootstrap(a, b)).toEqual(pairedBootstrap(a, b));
    const other = pairedBootstrap(a, b, { seed: 12 });
    expect([other.low, other.high]).not.toEqual([first.low, first.high]);
    expect(other.difference).toBe(first.difference);
  });

  it('covers the known mean difference and matches the exact resampling distribution', () => {
    // 200 pairs; a always fails, b succeeds on 60: difference 0.3. Resampling pairs,
    // the mean of d is exactly K/200 with K ~ Binomial(200, 0.3), so the percentile
    // interval must sit at that distribution's 2.5% and 97.5% quantiles (± Monte Carlo error).
    const a = new Array<number>(200).fill(0);
    const b = Array.from({ length: 200 }, (_, i) => (i < 60 ? 1 : 0));
    const result = pairedBootstrap(a, b, { iterations: 20_000, seed: 5 });
    expect(result.difference).toBeCloseTo(0.3, 15);
    expect(result.low).toBeLessThan(0.3);
    expect(result.high).toBeGreaterThan(0.3);
    const exactLow = binomialMeanQuantile(200, 60, 0.025);
    const exactHigh = binomialMeanQuantile(200, 60, 0.975);
    // Cross-check of the helper: scipy 1.17.1 binom.ppf([0.025, 0.975], 200, 0.3) / 200 = 0.24, 0.365.
    expect([exactLow, exactHigh]).toEqual([0.24, 0.365]);
    // With 20 000 resamples the Monte Carlo error of a 2.5% quantile is well under one step of 1/200.
    expect(Math.abs(result.low - exactLow)).toBeLessThanOrEqual(1 / 200 + 1e-12);
    expect(Math.abs(result.high - exactHigh)).toBeLessThanOrEqual(1 / 200 + 1e-12);
  });

  it('keeps pairs together: opposite flips cancel within the pair, not across pairs', () => {
    // d = b − a is +1 on 30 pairs, −1 on 10, 0 on 60: mean 0.2, exactly as mean(b) − mean(a).
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 100; i++) {
      if (i < 30) {
        a.push(0);
        b.push(1);
      } else if (i < 40) {
        a.push(1);
        b.push(0);
      } else {
        const same = i % 2;
        a.push(same);
        b.push(same);
      }
    }
    const result = pairedBootstrap(a, b, { iterations: 4000, seed: 3 });
    expect(result.difference).toBeCloseTo(0.2, 15);
    expect(result.low).toBeGreaterThan(0);
    expect(result.high).toBeLessThan(0.4);
  });

  it('resamples indices uniformly: for d = [0, 1] the means 0, ½, 1 come up ¼, ½, ¼ of the time', () => {
    const iterations = 40_000;
    const means = bootstrapDistribution([0, 0], [0, 1], { iterations, seed: 9 });
    const count = (value: number) => means.filter((m) => m === value).length / iterations;
    // Binomial standard error √(¼·¾/40000) ≈ 0.0022; allow 5 of them.
    expect(Math.abs(count(0) - 0.25)).toBeLessThan(0.011);
    expect(Math.abs(count(0.5) - 0.5)).toBeLessThan(0.0125);
    expect(Math.abs(count(1) - 0.25)).toBeLessThan(0.011);
    // The distribution is returned sorted, so its quantiles are direct.
    expect(quantile(means, 0)).toBe(0);
    expect(quantile(means, 1)).toBe(1);
  });

  it('narrows as the confidence level falls', () => {
    const a = Array.from({ length: 80 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    const b = Array.from({ length: 80 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const wide = pairedBootstrap(a, b, { confidence: 0.99 });
    const narrow = pairedBootstrap(a, b, { confidence: 0.5 });
    expect(narrow.high - narrow.low).toBeLessThan(wide.high - wide.low);
  });

  it('returns NaN for no pairs and rejects unequal lengths and bad options', () => {
    const empty = pairedBootstrap([], []);
    expect(empty.difference).toBeNaN();
    expect(empty.low).toBeNaN();
    expect(empty.high).toBeNaN();
    expect(() => pairedBootstrap([1, 0], [1])).toThrow(RangeError);
    expect(() => pairedBootstrap([1], [1], { iterations: 0 })).toThrow(RangeError);
    expect(() => pairedBootstrap([1], [1], { confidence: 1 })).toThrow(RangeError);
  });
});
