import path from 'node:path';

/** Commander collector for a repeatable flag (`--domain a --domain b` → ['a', 'b']). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** A path as the user would type it: relative when under the current folder. */
export function displayPath(target: string): string {
  const relative = path.relative(process.cwd(), target);
  return relative === '' ? '.' : relative.startsWith('..') ? target : relative;
}
