// The ajv bundle of `npm run build` (scripts/build.js): ajv's three drafts
// and ajv-formats in one CommonJS file, dist/src/vendor/ajv.cjs, which
// src/registry/schema/ajv-modules.ts requires instead of the packages while
// the installed versions are the bundled ones.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleLicences } from './bundle-licences.js';

// Getters: a draft's module runs on first use, as a require of it did (ajv-formats requires draft-07's).
const ENTRY = `module.exports = {
  get Ajv2020() { return require('ajv/dist/2020').default; },
  get Ajv2019() { return require('ajv/dist/2019').default; },
  get Ajv() { return require('ajv').default; },
  get addFormats() { return require('ajv-formats').default; },
};`;

/** The package an input of the bundle belongs to (node_modules/<name>/… or node_modules/@scope/<name>/…). */
function packageOf(input) {
  const parts = input.split('node_modules/').pop().split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Write the bundle of the installed packages to `file` (under dist/: AJV_BUNDLE_IN_DIST). */
export async function writeAjvBundle(esbuild, rootDir, file) {
  // One build, kept in memory: its inputs name the packages whose versions and licences go with it.
  const built = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: rootDir, loader: 'js', sourcefile: 'ajv-bundle.cjs' },
    bundle: true,
    write: false,
    metafile: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  const names = [
    ...new Set(
      Object.keys(built.metafile.inputs)
        .filter((input) => input.includes('node_modules/'))
        .map(packageOf),
    ),
  ].sort();
  const { versions, banner } = bundleLicences(rootDir, names);
  const footer = `module.exports.versions = ${JSON.stringify(versions)};`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${banner}\n${built.outputFiles[0].text}${footer}\n`);
}
