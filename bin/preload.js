// Plain-JavaScript dependencies loaded before tsx is registered.
//
// Every command (not bare `--help`) loads zod and yaml: ~100 plain-JavaScript
// modules. Imported before tsx is registered, they load through node's own
// loader instead of each taking a round trip through tsx's loader thread
// (about half the time); the TypeScript code then finds them in the module cache.
// The commands that end by rendering report.html (charts) do the same for Vega
// and Vega-Lite (~100 more): ~0.15 s of CPU at start instead of ~0.4 s (and
// more memory) in the report step; not for their `--help`.
// Used by bin/toolmark.js and by the bench's child processes (scripts/bench/),
// so the bench measures what the CLI does.

// All of this only pays off through tsx (a checkout): compiled, nothing stands
// between a lazy import and node's loader, so bin/toolmark.js preloads nothing
// and the report step imports Vega when (and only when) it draws a chart —
// `report --rescore` with nothing to re-grade draws none.
const RENDERS_CHARTS = new Set(['run', 'report', 'merge']);

/**
 * Preload what `toolmark <command> <args>` will need when its TypeScript
 * runs through tsx; nothing for bare `--help`.
 */
export async function preloadPlainModules(command, args) {
  if (command === undefined) return;
  const charts =
    RENDERS_CHARTS.has(command) &&
    !args.includes('--help') &&
    !args.includes('-h') &&
    !(command === 'report' && args.includes('--rescore'));
  await Promise.all([import('zod'), import('yaml'), ...(charts ? [import('vega'), import('vega-lite')] : [])]);
}
