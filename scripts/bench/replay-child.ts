/**
 * Child-process entry for the replay figures, so each measurement gets a
 * fresh heap and its own peak RSS:
 *   tsx scripts/bench/replay-child.ts replay  ROOT RUN_ID
 *   tsx scripts/bench/replay-child.ts rescore ROOT RUN_DIR
 * Prints one JSON line: the timings plus `max_rss_mb` (process.resourceUsage).
 */
import { fitHeapGrowth, limitHeapGrowth, releaseMemory } from '../../src/cli/heap-policy.ts';
import { timedReplay, timedRescore } from './replay-run.ts';

const [mode, root, target] = process.argv.slice(2);
if (!root || !target || (mode !== 'replay' && mode !== 'rescore')) {
  process.stderr.write('usage: replay-child.ts replay ROOT RUN_ID | rescore ROOT RUN_DIR\n');
  process.exit(2);
}
// The heap policy `toolmark run` and `toolmark report` use (src/cli/heap-policy.ts,
// set by src/cli/main.ts), and, as the CLI does, memory handed back where the
// run's phases meet (its `betweenPhases` hook, by the planned trials it is
// given) and the heap's growth fitted to the run's size once its trials start
// (`onStart`), as src/cli/commands/run-action.ts does.
limitHeapGrowth();
const timings =
  mode === 'replay'
    ? await timedReplay(root, target, {
        onStart: (info) => fitHeapGrowth(info.planned),
        betweenPhases: releaseMemory,
      })
    : await timedRescore(root, target, { betweenPhases: releaseMemory });
process.stdout.write(`${JSON.stringify({ ...timings, max_rss_mb: process.resourceUsage().maxRSS / 1024 })}\n`);
