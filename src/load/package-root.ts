import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | null = null;

/**
 * toolmark's own folder (the one holding its package.json): this
 * repository when run from source, node_modules/toolmark when installed.
 * Found by walking up, since compiled files sit one folder deeper (dist/).
 */
export function packageRoot(): string {
  if (found) return found;
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'toolmark')
      return (found = dir);
  }
  throw new Error('toolmark: cannot find its own package.json');
}
