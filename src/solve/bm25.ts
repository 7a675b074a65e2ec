/**
 * Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
 * BM25 and Beyond", 2009), the ranking the emulated `search_tools` uses.
 * Written out here rather than taken from a package so the formula is in
 * plain sight and its test can carry the hand computation:
 *
 *   score(D, Q) = Σ_{t ∈ Q} idf(t) · f(t,D)·(k1+1) / (f(t,D) + k1·(1 − b + b·|D|/avgdl))
 *   idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
 *
 * with f the term's count in the document, |D| the document's length in
 * terms, avgdl the mean length, N the number of documents and n(t) how many
 * contain t. This idf (Lucene's) is never negative, so a term in most
 * documents adds little instead of pushing a document down.
 */

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Lower-case terms: splits on anything but letters and digits, and between camelCase words (`getTicket` → get, ticket). */
export function terms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 0);
}

export interface Bm25Hit {
  /** Index of the document in the list the index was built from. */
  index: number;
  score: number;
}

/** An index over a fixed list of documents (each already a list of terms). */
export class Bm25Index {
  private readonly counts: Map<string, number>[];
  private readonly lengths: number[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(documents: readonly (readonly string[])[]) {
    this.counts = documents.map((document) => {
      const counts = new Map<string, number>();
      for (const term of document) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const term of counts.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return counts;
    });
    this.lengths = documents.map((document) => document.length);
    const total = this.lengths.reduce((sum, length) => sum + length, 0);
    this.averageLength = documents.length === 0 ? 0 : total / documents.length;
  }

  idf(term: string): number {
    const n = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (this.counts.length - n + 0.5) / (n + 0.5));
  }

  score(index: number, query: readonly string[]): number {
    const counts = this.counts[index]!;
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * this.lengths[index]!) / (this.averageLength || 1));
    let score = 0;
    // A query term repeated counts once: a query is a set of words to look for.
    for (const term of new Set(query)) {
      const f = counts.get(term) ?? 0;
      if (f === 0) continue;
      score += (this.idf(term) * f * (BM25_K1 + 1)) / (f + norm);
    }
    return score;
  }

  /** The best `k` documents with a score above 0, best first; ties keep document order (stable, deterministic). */
  search(query: readonly string[], k: number): Bm25Hit[] {
    return this.counts
      .map((_counts, index) => ({ index, score: this.score(index, query) }))
      .filter((hit) => hit.score > 0)
      .sort((left, right) => right.score - left.score || left.index - right.index)
      .slice(0, k);
  }
}
