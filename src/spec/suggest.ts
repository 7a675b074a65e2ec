import { distance } from 'fastest-levenshtein';

/**
 * The closest candidate to a near-miss name, or undefined when nothing is
 * close enough to be a plausible typo (about a third of the name may differ).
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(2, Math.ceil(Math.max(name.length, best.length) / 3));
  return bestDistance <= allowed ? best : undefined;
}
