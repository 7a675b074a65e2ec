// The commander bundle of `npm run build` (scripts/build.js): commander's
// CommonJS files as one ES module, dist/src/vendor/commander.js, which the
// CLI entry (dist/src/cli/main.js) imports instead of the package. Imported
// as installed, commander is an ES wrapper, a CommonJS entry whose named
// exports node finds by parsing it, and six files it requires one by one;
// every command, `--help` included, paid for them before parsing its flags
// (`--help` 162 → 154 ms wall, median of 25 interleaved, load average ~4).
// Its licence is kept at the top of the file. Unlike the ajv bundle, it is
// used whatever commander is installed: only toolmark's own CLI parses with
// it, and no object of it crosses to a user's code, so the version the build
// bundled is the one the CLI was tested with. commander stays a dependency:
// a source checkout runs it as installed, and the published types name it.
import { writeEsmBundle } from './esm-bundle.js';

/** Where the bundle is written, under dist/ (package.json's `imports` names this file). */
export const COMMANDER_BUNDLE_IN_DIST = 'src/vendor/commander.js';

/** The bundle's name in package.json's `imports`, which maps it to its file under dist/. */
export const COMMANDER_IMPORT = '#vendor/commander';

/**
 * The esbuild plugin of the main build: `commander` is the bundle, imported
 * by its name in package.json's `imports` — right from any file of the
 * package, whichever output file or chunk the import lands in (a path
 * relative to the importing source file would not be: esbuild writes it
 * unchanged into the chunk, which may sit elsewhere).
 */
export function commanderFromBundle() {
  return {
    name: 'commander-bundle',
    setup(build) {
      build.onResolve({ filter: /^commander$/ }, () => ({ path: COMMANDER_IMPORT, external: true }));
    },
  };
}

/** Write the bundle of the installed commander to `file`. */
export async function writeCommanderBundle(esbuild, rootDir, file) {
  await writeEsmBundle(esbuild, {
    rootDir,
    file,
    entry: "export { Command, CommanderError } from 'commander';",
    packages: ['commander'],
    // commander's require() calls (node's own modules) need a require in an ES module.
    prelude: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n",
  });
}
