import { readFileSync } from 'node:fs';

/** toolmark's own version (package.json), as manifests record it. */
export function toolmarkVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
