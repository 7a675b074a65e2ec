import { describe, expect, it } from 'vitest';
import { BM25_B, BM25_K1, Bm25Index, terms } from '../../src/solve/bm25.ts';

/**
 * Hand computation (k1 = 1.2, b = 0.75), three documents:
 *   D0 = [a, b]  |D0| = 2      D1 = [a, c, c]  |D1| = 3      D2 = [d]  |D2| = 1
 *   N = 3, avgdl = (2 + 3 + 1) / 3 = 2
 *
 * idf(c): n = 1 → ln(1 + (3 − 1 + 0.5) / (1 + 0.5)) = ln(8/3)   = 0.980829
 * idf(a): n = 2 → ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln(1.6)   = 0.470004
 *
 * norm(D0) = 1.2 · (1 − 0.75 + 0.75 · 2/2) = 1.2
 * norm(D1) = 1.2 · (1 − 0.75 + 0.75 · 3/2) = 1.65
 *
 * score(D1, c) = 0.980829 · 2 · 2.2 / (2 + 1.65)  = 1.182370
 * score(D0, a) = 0.470004 · 1 · 2.2 / (1 + 1.2)   = 0.470004
 * score(D1, a) = 0.470004 · 1 · 2.2 / (1 + 1.65)  = 0.390192
 * score(D1, a c) = 0.390192 + 1.182370 = 1.572562;  D2 scores 0 and is left out.
 */
describe('BM25', () => {
  const index = new Bm25Index([['a', 'b'], ['a', 'c', 'c'], ['d']]);

  it('uses the textbook constants', () => {
    expect([BM25_K1, BM25_B]).toEqual([1.2, 0.75]);
  });

  it('matches the hand-computed idf and scores', () => {
    expect(index.idf('c')).toBeCloseTo(0.980829, 5);
    expect(index.idf('a')).toBeCloseTo(0.470004, 5);
    expect(index.score(1, ['c'])).toBeCloseTo(1.18237, 4);
    expect(index.score(0, ['a'])).toBeCloseTo(0.470004, 5);
    expect(index.score(1, ['a'])).toBeCloseTo(0.390192, 5);
    expect(index.score(2, ['a', 'c'])).toBe(0);
  });

  it('ranks best first, drops zero scores, cuts at k, counts a repeated query term once', () => {
    const hits = index.search(['a', 'c'], 5);
    expect(hits.map((hit) => hit.index)).toEqual([1, 0]);
    expect(hits[0]!.score).toBeCloseTo(1.572562, 4);
    expect(index.search(['a', 'c'], 1).map((hit) => hit.index)).toEqual([1]);
    expect(index.score(1, ['c', 'c'])).toBeCloseTo(index.score(1, ['c']), 10);
  });

  it('splits names into terms: dots, underscores, camelCase, case', () => {
    expect(terms('getTicket billing.invoice_get Refund')).toEqual([
      'get',
      'ticket',
      'billing',
      'invoice',
      'get',
      'refund',
    ]);
  });
});
