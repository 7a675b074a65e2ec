// V8 code caches of the vendored scripts (scripts/zod-bundle.js), made by
// `npm run build` — never at run time, never in a user's folders — and read
// by src/spec/cached-script.ts, which checks them (the script's SHA-256; V8
// its node and flags) and falls back to a plain compile.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Write the code cache of the script at `scriptUrl` to `cacheUrl`, made in a
 * child process that runs it the way the CLI does: through `moduleUrl` (the
 * ES module that runs it), then `warmUrl` (toolmark's modules using it: the
 * functions they call are compiled into the cache too; for zod, the public
 * API, whose spec builds its schemas at import: that import 243 → 184 ms
 * against a cache of zod's own import only, median of 15, load ~12), with
 * V8's default flags. V8 accepts a cache only under the flags it was made with,
 * so no NODE_OPTIONS reaches the child, and the CLI loads zod before its
 * heap policy sets a flag (src/cli/main.ts).
 */
export function writeCodeCache({ loaderUrl, moduleUrl, warmUrl, scriptUrl, cacheUrl }) {
  const program = [
    `const { codeCacheOf } = await import(${JSON.stringify(loaderUrl.href)});`,
    `await import(${JSON.stringify(moduleUrl.href)});`,
    `await import(${JSON.stringify(warmUrl.href)});`,
    `process.stdout.write(codeCacheOf(new URL(${JSON.stringify(scriptUrl.href)})).toString('base64'));`,
  ].join('\n');
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const cache = execFileSync(process.execPath, ['--input-type=module', '-e', program], {
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(fileURLToPath(cacheUrl), Buffer.from(cache, 'base64'));
}
