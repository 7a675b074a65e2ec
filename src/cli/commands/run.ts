import type { Command } from 'commander';
import { collect } from '../cli-helpers.ts';
import type { RunFlags } from './run-action.ts';
import { providerUsage } from '../../../providers/table.ts';

// The action (./run-action.ts) is imported when the command runs, with the
// run library, so `toolmark --help` stays fast.

/** `toolmark run`: providers × surfaces × tasks × trials, streamed to results/<run-id>/. */
export function describe(program: Command, setExitCode: (code: number) => void): Command {
  return program
    .command('run')
    .description('Run tasks × surfaces × trials against providers; stream each trial to results/<run-id>/trials.jsonl')
    .option('--provider <spec>', providerUsage(), collect, [])
    .option('--surface <id>', 'surface id (repeatable; default: all)', collect, [])
    .option('--split <split>', 'train | heldout | all')
    .option('--trials <n>', 'trials per task × surface × provider')
    .option('--concurrency <n>', 'trials run at once')
    .option('--domain <name>', 'domain to run (repeatable; default: all)', collect, [])
    .option('--task <glob>', 'only tasks whose id matches (* and ?)')
    .option('--record <file>', 'write every model turn to this cassette (JSONL)')
    .option('--resume <run>', 'continue an interrupted run (run id or folder)')
    .option('--shard <i/n>', 'run only shard i of n (CI matrix); merge with `toolmark merge`')
    .option('--out <dir>', 'results folder (default from config: results)')
    .option('--run-id <id>', 'run id (default: timestamp + random suffix)')
    .option('--allow-stale', 'replay cassettes even when the surface or task changed since recording')
    .option(
      '--tool-time <mode>',
      'auto | real | simulated: simulated time runs tool sleeps (simulated latency, timeouts) without waiting; auto = simulated when every provider is offline (default from config: auto)',
    )
    .option('--root <dir>', 'project root (default: current folder)')
    .option('--timings', 'print wall and CPU time of each phase and the peak RSS to stderr at the end (JSON)')
    .action(async (flags: RunFlags) => (await import('./run-action.ts')).runAction(flags, setExitCode));
}
