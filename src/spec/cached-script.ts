import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/**
 * A vendored bundle the build wrote as a script (scripts/esm-bundle.js,
 * `writeScriptBundle`: CommonJS wrapped in a function expression), compiled
 * with V8's code cache the build made for it. Node 20 has no code cache for
 * ES modules (module.enableCompileCache is node 22), but `vm.Script` takes
 * `cachedData`: the zod bundle's import 64 → 43 ms (median of 20 alternating
 * runs, this host, load ~3.5). Always correct:
 * - the cache file starts with the SHA-256 of the script's bytes (V8 itself
 *   checks only the source's length): a cache of another bundle is not used;
 * - V8 rejects a cache of another node or of other V8 flags (its flag hash;
 *   `--heap-growing-percent` of src/cli/heap-policy.ts counts) and then
 *   compiles from source, as without a cache (`cachedDataRejected`);
 * - a missing or short cache file: compiled from source.
 */

/** Bytes of the cache file before V8's data: the script's SHA-256. */
const DIGEST_BYTES = 32;

/** The scripts this process compiled, by URL, for the build's `codeCacheOf`. */
const compiled = new Map<string, { script: Script; digest: Buffer }>();

type Wrapper = (exports: object, require: NodeJS.Require, module: { exports: object }) => void;

/** Run the script at `scriptUrl` (its cache at `cacheUrl`) and return its `module.exports`. */
export function runCachedScript(scriptUrl: URL, cacheUrl: URL): Record<string, unknown> {
  const bytes = readFileSync(scriptUrl);
  // createHash, not crypto.hash: that is node ≥ 20.12, and toolmark runs on any node 20.
  const digest = createHash('sha256').update(bytes).digest();
  const script = new Script(bytes.toString('utf8'), {
    filename: fileURLToPath(scriptUrl),
    cachedData: cacheFor(digest, cacheUrl),
  });
  compiled.set(scriptUrl.href, { script, digest });
  const module = { exports: {} };
  (script.runInThisContext() as Wrapper).call(undefined, module.exports, createRequire(scriptUrl), module);
  return module.exports as Record<string, unknown>;
}

function cacheFor(digest: Buffer, cacheUrl: URL): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(cacheUrl);
  } catch {
    return undefined;
  }
  if (cache.length <= DIGEST_BYTES || !digest.equals(cache.subarray(0, DIGEST_BYTES))) return undefined;
  return cache.subarray(DIGEST_BYTES);
}

/**
 * The cache file's bytes for a script this process ran (`runCachedScript`),
 * with every function compiled so far: the build calls it in a child process
 * after the script ran and toolmark's own modules used it (scripts/code-cache.js).
 */
export function codeCacheOf(scriptUrl: URL): Buffer {
  const entry = compiled.get(scriptUrl.href);
  if (entry === undefined) throw new Error(`no script ran from ${scriptUrl.href}`);
  return Buffer.concat([entry.digest, entry.script.createCachedData()]);
}
