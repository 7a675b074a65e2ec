import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../load/package-root.ts';

/** toolmark's own version (package.json), as manifests record it. Found by walking up: compiled files sit in dist/. */
export function toolmarkVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
