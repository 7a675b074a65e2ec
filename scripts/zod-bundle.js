// The zod bundle of `npm run build` (scripts/build.js): the installed zod as
// one ES module, dist/src/vendor/zod.js, with its version beside it
// (dist/src/vendor/zod.json). Imported as installed, zod is ~95 ES modules,
// each resolved, read, compiled and linked: ~100 ms of a bare script's
// start against ~65 ms bundled (this host, 8 interleaved runs each). Every
// compiled `import { z } from 'zod'` of toolmark imports
// dist/src/spec/zod-module.js instead, which takes the bundle only while it
// holds the installed version (else the installed package, as before); a
// user's TypeScript module that imports that same installed zod is pointed
// at the same bundle (src/load/transpiled-module.ts), so a user's schemas
// and toolmark's share one zod as before. Its licence is kept at the top.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeEsmBundle } from './esm-bundle.js';

/** The module every compiled import of `zod` is pointed at (tsc's output of src/spec/zod-module.ts). */
const ZOD_MODULE = 'dist/src/spec/zod-module.js';

/**
 * The esbuild plugin of the main build: `zod` is src/spec/zod-module.ts
 * (bundled into a shared chunk: one instance for every entry), except in
 * that module itself, whose `import('zod')` is the installed package.
 */
export function zodFromModule(rootDir) {
  const chooser = join(rootDir, ZOD_MODULE);
  return {
    name: 'zod-module',
    setup(build) {
      build.onResolve({ filter: /^zod$/ }, (args) =>
        args.importer === chooser ? { path: 'zod', external: true } : { path: chooser },
      );
    },
  };
}

/** Write the bundle of the installed zod to `file` and its version to `versionFile` (ZOD_BUNDLE_IN_DIST, ZOD_VERSION_IN_DIST). */
export async function writeZodBundle(esbuild, rootDir, file, versionFile) {
  const versions = await writeEsmBundle(esbuild, {
    rootDir,
    file,
    // Everything the package's entry exports, for a user's module as much as for toolmark.
    entry: "export * from 'zod';\nexport { default } from 'zod';",
    packages: ['zod'],
  });
  writeFileSync(versionFile, `${JSON.stringify({ version: versions.zod })}\n`);
}
