import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Zod from 'zod';
import { distModule } from './dist-module.ts';

/**
 * toolmark's zod when compiled: every `import { z } from 'zod'` of dist/
 * imports this module instead (scripts/zod-bundle.js). It is the one-file
 * bundle the build wrote while that holds the installed zod's version, else
 * the installed package, as from source. Imported as installed, zod is ~95
 * ES modules: ~100 ms of a bare script's start against ~65 ms for the bundle
 * (interleaved, this host). The code is the same either way; a bundle of
 * another version (an install that resolved a newer zod) is never used.
 * The bundle's module runs a script compiled from the V8 code cache the
 * build made (src/spec/cached-script.ts: the import 64 → 43 ms).
 */

/** The bundle's place under dist/ (shipped with dist/src/), and its version's. */
export const ZOD_BUNDLE_IN_DIST = 'src/vendor/zod.js';
export const ZOD_VERSION_IN_DIST = 'src/vendor/zod.json';

/** The bundle's URL when it holds the installed zod's version, else null (and always from source). */
function usableBundle(): URL | null {
  const bundle = distModule(import.meta.url, ZOD_BUNDLE_IN_DIST);
  const version = distModule(import.meta.url, ZOD_VERSION_IN_DIST);
  if (bundle === null || version === null) return null;
  try {
    const bundled = (JSON.parse(readFileSync(version, 'utf8')) as { version?: string }).version;
    const installed = (createRequire(import.meta.url)('zod/package.json') as { version?: string }).version;
    return bundled !== undefined && bundled === installed ? bundle : null;
  } catch {
    return null;
  }
}

const bundle = usableBundle();
const zod = (bundle === null ? await import('zod') : await import(bundle.href)) as typeof Zod;

/** zod's namespace, as `import { z } from 'zod'` gives it. */
export const z = zod.z;

/**
 * Where the zod the bundle stands in for is (the real path of the installed
 * package's entry, as an `import 'zod'` from here finds it) and the bundle's
 * URL; null while the installed package itself is toolmark's zod. A user's
 * module importing that same file gets the bundle (src/load/transpiled-module.ts):
 * one zod for the user's schemas and toolmark's, as without the bundle.
 */
export const zodBundle: { installedEntry: string; url: string } | null =
  bundle === null
    ? null
    : { installedEntry: realpathSync(fileURLToPath(import.meta.resolve('zod'))), url: bundle.href };
