import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeCacheOf, runCachedScript } from '../../src/spec/cached-script.ts';

// A vendored script run with the build's V8 code cache (src/spec/cached-script.ts):
// the cache is only ever a speed-up — a missing, foreign or damaged cache gives
// the same exports, compiled from the script's source.

let made = 0;
/** A script file of the build's shape exporting `value`, in a folder of its own (each source new to this process). */
function scriptFile(value: string): { script: URL; cache: URL } {
  const folder = mkdtempSync(join(tmpdir(), 'toolmark-cached-script-'));
  const file = join(folder, 'script.js');
  made += 1;
  writeFileSync(
    file,
    `(function (exports, require, module) {\n'use strict';\n// ${made}\n` +
      `module.exports = { value: ${JSON.stringify(value)}, twice: (n) => n * 2, strict: (function () { return this; })() === undefined, path: require.resolve('node:path') };\n})\n`,
  );
  return { script: pathToFileURL(file), cache: pathToFileURL(join(folder, 'script.cache')) };
}

describe('runCachedScript', () => {
  it('runs a script without a cache file, in strict mode, with a require from its place', () => {
    const { script, cache } = scriptFile('plain');
    const exports = runCachedScript(script, cache);
    expect(exports.value).toBe('plain');
    expect((exports.twice as (n: number) => number)(21)).toBe(42);
    expect(exports.strict).toBe(true);
    expect(exports.path).toBe('node:path');
  });

  it('runs a script from the cache made after it ran', () => {
    const first = scriptFile('cached');
    runCachedScript(first.script, first.cache);
    const second = scriptFile('cached');
    writeFileSync(second.cache, codeCacheOf(first.script));
    // The cache is of the first file's text; the second holds other text (its comment): not used.
    expect(runCachedScript(second.script, second.cache).value).toBe('cached');
    const third = scriptFile('cached');
    writeFileSync(third.cache, Buffer.alloc(0));
    expect(runCachedScript(third.script, third.cache).value).toBe('cached');
  });

  it('never runs the code of a cache made from another script of the same length', () => {
    // V8 checks only the source's length: the cache's own SHA-256 of the script keeps it out.
    const a = scriptFile('aaaa');
    runCachedScript(a.script, a.cache);
    (runCachedScript(a.script, a.cache).twice as (n: number) => number)(1);
    const b = scriptFile('bbbb');
    writeFileSync(b.cache, codeCacheOf(a.script));
    expect(runCachedScript(b.script, b.cache).value).toBe('bbbb');
  });

  it('compiles from source when V8 rejects the cache (damaged data behind the right digest)', () => {
    const a = scriptFile('damaged');
    runCachedScript(a.script, a.cache);
    const cache = codeCacheOf(a.script);
    cache.fill(7, 32 + 16);
    writeFileSync(a.cache, cache);
    expect(runCachedScript(a.script, a.cache).value).toBe('damaged');
  });

  it('refuses to make a cache of a script this process did not run', () => {
    expect(() => codeCacheOf(new URL('file:///nowhere/script.js'))).toThrow(/no script ran/);
  });
});
