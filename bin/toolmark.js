#!/usr/bin/env node
// Launcher. An installed toolmark runs its compiled JavaScript (dist/, built
// by `npm run build` at prepare/prepack); only a user's own domain.ts files
// go through a TypeScript loader (src/load/user-module.ts). A source checkout
// (src/ present: this repository) runs the TypeScript itself through tsx, so
// no build step stands between an edit and a run. TOOLMARK_DIST=1 runs the
// compiled dist/ there too (after `npm run build`): what an installed
// toolmark runs, for the bench (docs/performance.md) — no tsx at start-up.
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';

const args = process.argv.slice(2);
const source = new URL('../src/cli/main.ts', import.meta.url);
const fromSource = existsSync(source) && process.env.TOOLMARK_DIST !== '1';
// The preloads only spare tsx's loader thread its round trips (bin/preload.js);
// compiled, a module costs the same whenever it is first imported, and one a
// command never imports (zod and yaml for `run --help`) costs nothing; so
// compiled, preload.js itself is not even imported.
if (fromSource) {
  const { preloadPlainModules } = await import('./preload.js');
  await preloadPlainModules(
    args.find((arg) => !arg.startsWith('-')),
    args,
  );
}

let main;
if (fromSource) {
  // Ours first: hooks run last-registered first, so tsx resolves `toolmark`
  // through ours and then loads the TypeScript file it names.
  registerHooks('./source-resolve.js', import.meta.url);
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/src/cli/main.js'));
}
process.exitCode = await main(args);
// Once nothing is left to do (the event loop empty: every write done, as a
// natural exit waits for), leave through process.exit: a natural exit then
// also tears the heap down page by page (FreeEnvironment, Isolate::Dispose),
// which process.exit skips — the kernel takes the memory back at once. After
// a 10,000-task run (~250 MB resident) that teardown was ~60 ms of the
// process's wall between its last line and its end (112 → 53 ms, median of
// five each, load average ~9). Only when user code (a domain module, a
// package it loads) neither listens for `beforeExit` nor scheduled work there
// (its listeners ran before this one): a natural exit lets that work finish.
// The standard streams' handles are listed while open and hold nothing up.
const STDIO_HANDLES = new Set(['PipeWrap', 'TTYWrap']);
process.once('beforeExit', () => {
  const pending = process.getActiveResourcesInfo().filter((resource) => !STDIO_HANDLES.has(resource));
  if (process.listenerCount('beforeExit') === 0 && pending.length === 0) process.exit();
});
