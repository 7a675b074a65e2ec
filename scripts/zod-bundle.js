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
// The bundle is a script run by a small ES module (V8 caches no ES module's
// code in node 20; a script's, yes: scripts/code-cache.js).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeScriptBundle } from './esm-bundle.js';

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

/** The script beside the module (`file`) and its V8 code cache (src/spec/cached-script.ts, scripts/code-cache.js). */
export const ZOD_SCRIPT = 'zod-script.js';
export const ZOD_CODE_CACHE = 'zod-script.cache';

/**
 * Write the bundle of the installed zod and its version (ZOD_BUNDLE_IN_DIST,
 * ZOD_VERSION_IN_DIST). The bundle is a script (ZOD_SCRIPT, beside `file`),
 * so V8 can compile it from the code cache the build makes afterwards
 * (scripts/code-cache.js): node 20 caches no ES module's code. `file` is the
 * ES module toolmark and a user's module import: it runs the script through
 * `loader` (the URL of src/spec/cached-script's module, relative to `file`
 * or absolute) and exports every name the installed entry exports.
 */
export async function writeZodBundle(esbuild, rootDir, file, versionFile, loader) {
  const { versions, names } = await writeScriptBundle(esbuild, {
    rootDir,
    file: join(dirname(file), ZOD_SCRIPT),
    // Everything the package's entry exports, for a user's module as much as for toolmark.
    entry: "export * from 'zod';\nexport { default } from 'zod';",
    packages: ['zod'],
  });
  const bindings = names.map((name, index) => `const _${index} = zod[${JSON.stringify(name)}];\n`).join('');
  const exported = names.map((name, index) => `_${index} as ${JSON.stringify(name)}`).join(', ');
  writeFileSync(
    file,
    `// The installed zod (scripts/zod-bundle.js), run from ${ZOD_SCRIPT} with its code cache.\n` +
      `import { runCachedScript } from ${JSON.stringify(loader)};\n` +
      `const zod = runCachedScript(new URL('./${ZOD_SCRIPT}', import.meta.url), new URL('./${ZOD_CODE_CACHE}', import.meta.url));\n` +
      `${bindings}export { ${exported} };\n`,
  );
  writeFileSync(versionFile, `${JSON.stringify({ version: versions.zod })}\n`);
}
