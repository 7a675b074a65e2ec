import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../load/package-root.ts';

/** Commander collector for a repeatable flag (`--domain a --domain b` → ['a', 'b']). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** toolmark's own version (package.json), as manifests record it. */
export function toolmarkVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
