import { readFileSync } from 'node:fs';

/** Commander collector for a repeatable flag (`--domain a --domain b` → ['a', 'b']). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** toolmark's own version (package.json), as manifests record it. */
export function toolmarkVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
