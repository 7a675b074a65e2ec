// The banner of a bundle the build writes (scripts/ajv-bundle.js, and
// scripts/esm-bundle.js for the commander and zod bundles): each bundled package's version and licence
// text, as installed, in one comment at the top of the file (`/*!` keeps it
// through minifiers).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The installed versions of `names` (under `rootDir`/node_modules) and the licence banner naming them. */
export function bundleLicences(rootDir, names) {
  const versions = {};
  const licences = [];
  for (const name of names) {
    const dir = join(rootDir, 'node_modules', name);
    versions[name] = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    const licence = readdirSync(dir).find((file) => /^licen[cs]e/i.test(file));
    if (licence) licences.push(`${name}@${versions[name]}:\n\n${readFileSync(join(dir, licence), 'utf8').trim()}`);
  }
  return { versions, banner: `/*!\n${licences.join('\n\n').replaceAll('*/', '* /')}\n*/` };
}
