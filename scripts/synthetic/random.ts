import { createHash } from 'node:crypto';
import { createRandom } from '../../src/stats/index.ts';

/**
 * A named, seeded draw in [0, 1). The seed is the behaviour, surface, task
 * and trial plus the decision's own name, so each decision is independent of
 * every other and the same on every turn of a trial (the policy re-derives
 * its whole plan from the transcript each turn) and on every re-run.
 */
export function draw(...parts: readonly (string | number)[]): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return createRandom(digest.readUInt32BE(0))();
}

/** A seeded coin: true with probability `probability`. */
export function chance(probability: number, ...parts: readonly (string | number)[]): boolean {
  if (probability <= 0) return false;
  if (probability >= 1) return true;
  return draw(...parts) < probability;
}

/** A seeded pick from a non-empty list. */
export function pick<T>(items: readonly T[], ...parts: readonly (string | number)[]): T {
  return items[Math.floor(draw(...parts) * items.length)]!;
}
