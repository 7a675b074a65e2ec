// The ajv bundle of `npm run build` (scripts/build.js): ajv's three drafts
// and ajv-formats in one CommonJS file, dist/src/vendor/ajv.cjs, which
// src/registry/schema/ajv-modules.ts requires instead of the packages while
// the installed versions are the bundled ones.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

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
  const probe = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: rootDir, loader: 'js', sourcefile: 'ajv-bundle.cjs' },
    bundle: true,
    write: false,
    metafile: true,
    format: 'cjs',
    platform: 'node',
    logLevel: 'warning',
  });
  const names = [
    ...new Set(
      Object.keys(probe.metafile.inputs)
        .filter((input) => input.includes('node_modules/'))
        .map(packageOf),
    ),
  ].sort();
  const versions = {};
  const licences = [];
  for (const name of names) {
    const dir = join(rootDir, 'node_modules', name);
    versions[name] = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    const licence = readdirSync(dir).find((file) => /^licen[cs]e/i.test(file));
    if (licence) licences.push(`${name}@${versions[name]}:\n\n${readFileSync(join(dir, licence), 'utf8').trim()}`);
  }
  await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: rootDir, loader: 'js', sourcefile: 'ajv-bundle.cjs' },
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: `/*!\n${licences.join('\n\n').replaceAll('*/', '* /')}\n*/` },
    footer: { js: `module.exports.versions = ${JSON.stringify(versions)};` },
  });
}
