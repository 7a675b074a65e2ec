// `npm run build` (and prepack): compile src/, providers/ and the synthetic
// example generator to dist/ (ignored by git), the JavaScript an installed
// toolmark runs. A source checkout never needs it: bin/toolmark.js runs the
// TypeScript there (README, "Development").
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
rmSync(new URL('dist', root), { recursive: true, force: true });
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });

// Then the two ways in — the CLI (bin/toolmark.js imports dist/src/cli/main.js)
// and the public API (package.json "exports": dist/src/index.js, what a user's
// domain imports) — are bundled over tsc's output, in place (issue 20). Each
// ES module costs node a resolve, a stat, a read, a compile and a link: a
// run imported ~250 of ours before it started, `validate` ~100. Split into
// shared chunks (dist/src/chunks/, which the grading-inputs code digest reads
// with the rest of dist/src), so a lazy import stays lazy and the two
// entries share one instance of every module; packages stay external but
// commander and zod (below: the zod a user's domain imports is still the
// one toolmark sees). tsc's other files
// stay for the declarations beside them; nothing imports them at run time.
// esbuild is tsx's (no dependency of ours).
//
// No `keepNames`: it wraps every function and class in a `__name(fn, "…")`
// call (~1,300 of them, and each closure again whenever it is made: a few per
// task and per trial), which redefines the function's `name` — ~10 % of
// `validate`'s CPU on the shipped example (350 → 400 ms, interleaved). What it
// kept: the names of the few helpers esbuild renames when two bundled modules
// declare the same top-level name (isRecord → isRecord2 and the like), seen only in an
// internal error's stack trace; toolmark reads the name of no function of its
// own (user tool functions are not bundled, the SDKs' error classes are external).
const esbuild = createRequire(require.resolve('tsx/package.json'))('esbuild');
// commander, which every command loads first, is the one package bundled: scripts/commander-bundle.js.
const { COMMANDER_BUNDLE_IN_DIST, commanderFromBundle, writeCommanderBundle } = await import(
  new URL('scripts/commander-bundle.js', root).href
);
await writeCommanderBundle(
  esbuild,
  fileURLToPath(new URL('.', root)),
  fileURLToPath(new URL(`dist/${COMMANDER_BUNDLE_IN_DIST}`, root)),
);
// zod as one file too, used only while it is the installed version: scripts/zod-bundle.js.
const { writeZodBundle, zodFromModule, ZOD_SCRIPT, ZOD_CODE_CACHE } = await import(
  new URL('scripts/zod-bundle.js', root).href
);
const { ZOD_BUNDLE_IN_DIST, ZOD_VERSION_IN_DIST } = await import(new URL('dist/src/spec/zod-module.js', root).href);
const zodModule = new URL(`dist/${ZOD_BUNDLE_IN_DIST}`, root);
// The script's runner, tsc's output of src/spec/cached-script.ts (no state of toolmark's: not bundled).
const scriptLoader = new URL('dist/src/spec/cached-script.js', root);
await writeZodBundle(
  esbuild,
  fileURLToPath(new URL('.', root)),
  fileURLToPath(zodModule),
  fileURLToPath(new URL(`dist/${ZOD_VERSION_IN_DIST}`, root)),
  relative(dirname(fileURLToPath(zodModule)), fileURLToPath(scriptLoader)),
);
await esbuild.build({
  absWorkingDir: fileURLToPath(new URL('.', root)),
  // The cassette reader too: a worker thread imports it by its path
  // (providers/replay/cassette-prefetch.ts). The chart renderer is bundled below.
  entryPoints: ['dist/src/index.js', 'dist/src/cli/main.js', 'dist/providers/replay/cassette-worker.js'],
  outdir: 'dist',
  outbase: 'dist',
  chunkNames: 'src/chunks/[name]-[hash]',
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  plugins: [commanderFromBundle(), zodFromModule(fileURLToPath(new URL('.', root)))],
  logLevel: 'warning',
});

// zod's V8 code cache (scripts/code-cache.js, src/spec/cached-script.ts), made once the
// public API's bundle exists: its schemas, built at import, compile the zod functions
// they call into the cache too.
const { writeCodeCache } = await import(new URL('scripts/code-cache.js', root).href);
writeCodeCache({
  loaderUrl: scriptLoader,
  moduleUrl: zodModule,
  warmUrl: new URL('dist/src/index.js', root),
  scriptUrl: new URL(ZOD_SCRIPT, zodModule),
  cacheUrl: new URL(ZOD_CODE_CACHE, zodModule),
});

// The chart worker's renderer (src/report/html/chart-worker.ts imports it by
// its path) is one file with Vega and Vega-Lite inside: they are ~200 ES
// modules, and a worker loading them one by one took ~160 ms of its start
// (of a 10,000-trial run's reports, or its trials: the worker starts early
// there), ~60 ms as one file. Only that thread runs this copy; a chart drawn
// in the main thread (the comparison page) imports the packages as
// installed, the same version, so the same SVG.
await esbuild.build({
  absWorkingDir: fileURLToPath(new URL('.', root)),
  entryPoints: ['dist/src/report/html/render-chart.js'],
  outdir: 'dist',
  outbase: 'dist',
  allowOverwrite: true,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  keepNames: true,
  logLevel: 'warning',
});

// The schema token counter's rank table (src/cost/tokenizer-table.ts): the
// tokenizer's 200,000 ranks as v8.serialize wrote them, read by the counter
// process instead of parsing gpt-tokenizer's 2.4 MB array literal.
const { writeTokenizerTable, TOKENIZER_TABLE_IN_DIST } = await import(
  new URL('dist/src/cost/tokenizer-table.js', root).href
);
writeTokenizerTable(new URL(`dist/${TOKENIZER_TABLE_IN_DIST}`, root));

// ajv and ajv-formats as one CommonJS file (src/registry/schema/ajv-modules.ts
// requires it). A domain with JSON Schemas (domain.yaml, tools.json) loads
// ajv while its tools are made: ~80 CommonJS files, each resolved (package
// lookups, stats), read and compiled one by one — ~40–60 ms of the load's
// main thread; one file ~20 ms. The same code: it is used only while the
// packages installed beside toolmark are the versions bundled here
// (`versions`), else the installed packages are required as before. Their
// licences are kept at the top of the file.
const { writeAjvBundle } = await import(new URL('scripts/ajv-bundle.js', root).href);
const { AJV_BUNDLE_IN_DIST } = await import(new URL('dist/src/registry/schema/ajv-modules.js', root).href);
await writeAjvBundle(
  esbuild,
  fileURLToPath(new URL('.', root)),
  fileURLToPath(new URL(`dist/${AJV_BUNDLE_IN_DIST}`, root)),
);
