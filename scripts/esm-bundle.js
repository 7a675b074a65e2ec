// One installed package (or a few) as one file the build writes
// (scripts/commander-bundle.js, scripts/zod-bundle.js): esbuild over an entry
// that re-exports what toolmark uses, the packages' licences at the top
// (scripts/bundle-licences.js). Either an ES module (`writeEsmBundle`) or a
// script V8 can compile from a code cache (`writeScriptBundle`, run by
// src/spec/cached-script.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { runInThisContext } from 'node:vm';
import { bundleLicences } from './bundle-licences.js';

async function bundle(esbuild, rootDir, entry, format) {
  const built = await esbuild.build({
    stdin: { contents: entry, resolveDir: rootDir, loader: 'js' },
    bundle: true,
    write: false,
    format,
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return built.outputFiles[0].text;
}

/**
 * Bundle `entry` (ES module source resolved from `rootDir`) into `file`,
 * `prelude` after the licence banner; returns the bundled packages' installed versions.
 */
export async function writeEsmBundle(esbuild, { rootDir, file, entry, packages, prelude = '' }) {
  const text = await bundle(esbuild, rootDir, entry, 'esm');
  const { versions, banner } = bundleLicences(rootDir, packages);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${banner}\n${prelude}${text}`);
  return versions;
}

/**
 * Bundle `entry` into `file` as a script whose value is a function
 * `(exports, require, module)` filling `module.exports` with what the entry
 * exports (CommonJS in strict mode, as the ES module it replaces ran);
 * returns the bundled packages' installed versions and the exported names.
 */
export async function writeScriptBundle(esbuild, { rootDir, file, entry, packages }) {
  const text = await bundle(esbuild, rootDir, entry, 'cjs');
  const { versions, banner } = bundleLicences(rootDir, packages);
  const script = `${banner}\n(function (exports, require, module) {\n'use strict';\n${text}\n})\n`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, script);
  const module = { exports: {} };
  runInThisContext(script, { filename: file })(module.exports, createRequire(file), module);
  return { versions, names: Object.keys(module.exports) };
}
