// Plain-JavaScript dependencies loaded before tsx is registered.
//
// Every command (not bare `--help`) loads zod and yaml: ~100 plain-JavaScript
// modules. Imported before tsx is registered, they load through node's own
// loader instead of each taking a round trip through tsx's loader thread
// (about half the time); the TypeScript code then finds them in the module cache.
// (Vega is not among them: report.html's charts are drawn in a worker thread,
// which imports Vega itself, src/report/html/chart-worker.ts.)
// Used by bin/toolmark.js and by the bench's child processes (scripts/bench/),
// so the bench measures what the CLI does.
//
// All of this only pays off through tsx (a checkout): compiled, nothing stands
// between a lazy import and node's loader, so bin/toolmark.js preloads nothing.

/**
 * Preload what `toolmark <command> <args>` will need when its TypeScript
 * runs through tsx; nothing for bare `--help`.
 */
export async function preloadPlainModules(command, args = []) {
  if (command === undefined) return;
  // `report --rescore` first checks whether anything needs grading at all
  // (src/run/rescore-quick-check.ts), which needs neither zod nor yaml: with
  // nothing to grade (the common case) the preload was a quarter of its CPU.
  // When it does grade, loading them later measured the same, through tsx too.
  if (command === 'report' && args.includes('--rescore')) return;
  await Promise.all([import('zod'), import('yaml')]);
}
