// One installed package (or a few) as one ES module the build writes
// (scripts/commander-bundle.js, scripts/zod-bundle.js): esbuild over an entry
// that re-exports what toolmark uses, the packages' licences at the top
// (scripts/bundle-licences.js).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleLicences } from './bundle-licences.js';

/**
 * Bundle `entry` (ES module source resolved from `rootDir`) into `file`,
 * `prelude` after the licence banner; returns the bundled packages' installed versions.
 */
export async function writeEsmBundle(esbuild, { rootDir, file, entry, packages, prelude = '' }) {
  const built = await esbuild.build({
    stdin: { contents: entry, resolveDir: rootDir, loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  const { versions, banner } = bundleLicences(rootDir, packages);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${banner}\n${prelude}${built.outputFiles[0].text}`);
  return versions;
}
