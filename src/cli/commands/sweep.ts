import type { Command } from 'commander';
import { collect } from '../cli-helpers.ts';

interface SweepFlags {
  root: string;
  domain?: string;
  surface: string;
  sizes: string;
  from?: string[];
  seed?: string;
  shuffle?: string;
  loading?: string[];
  provider?: string[];
  split?: string;
  trials?: string;
  task?: string;
  concurrency?: string;
  out?: string;
  runId?: string;
  record?: string;
  allowStale?: boolean;
  json?: boolean;
}

/** A whole number ≥ `min` from a flag, or a ConfigError naming the flag (exit 2). */
async function integer(flag: string, text: string, min: number): Promise<number> {
  const { ConfigError } = await import('../../spec/index.ts');
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError({ file: flag, field: text, message: 'not a whole number', expected: `an integer ≥ ${min}` });
  return value;
}

async function sweepAction(flags: SweepFlags): Promise<void> {
  const { sweepProject } = await import('../../run/index.ts');
  const { sweepCaption, sweepTable, isSynthetic } = await import('../../report/index.ts');
  const { formatTable } = await import('./validate.ts');
  const { displayPath } = await import('../cli-helpers.ts');
  const { ConfigError } = await import('../../spec/index.ts');
  const sizes = await Promise.all(flags.sizes.split(',').map((text) => integer('--sizes', text, 1)));
  const split = flags.split;
  if (split !== undefined && !['train', 'heldout', 'all'].includes(split))
    throw new ConfigError({
      file: '--split',
      field: split,
      message: `unknown split "${split}"`,
      expected: 'train, heldout or all',
    });
  const result = await sweepProject({
    root: flags.root,
    domain: flags.domain,
    surface: flags.surface,
    sizes,
    from: flags.from as never,
    seed: flags.seed === undefined ? undefined : await integer('--seed', flags.seed, 0),
    shuffle: flags.shuffle === undefined ? null : await integer('--shuffle', flags.shuffle, 0),
    loading: flags.loading?.flatMap((text) => text.split(',').map((mode) => mode.trim())) as never,
    selection: {
      ...(flags.provider?.length ? { providers: flags.provider } : {}),
      ...(split ? { split: split as 'train' | 'heldout' | 'all' } : {}),
      ...(flags.trials ? { trials: await integer('--trials', flags.trials, 1) } : {}),
      ...(flags.task ? { task: flags.task } : {}),
    },
    concurrency: flags.concurrency === undefined ? undefined : await integer('--concurrency', flags.concurrency, 1),
    out: flags.out,
    runId: flags.runId,
    record: flags.record,
    allowStale: flags.allowStale,
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ run: result.runDir, plan: result.plan, rows: result.rows }, null, 2)}\n`);
    return;
  }
  const synthetic = isSynthetic(result.manifest, result.summary);
  process.stdout.write(
    `${formatTable(sweepTable(result.rows))}\n\n${sweepCaption(result.manifest, synthetic).replace(/`/g, '')}\n`,
  );
  process.stdout.write(
    `\nrun → ${displayPath(result.runDir)}/ (report.md and report.html hold the sweep table and chart)\n`,
  );
}

/** `toolmark sweep`: selection accuracy and schema tokens against catalog size (issue 19 item 4). */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('sweep')
    .description(
      'Run the tasks over a ladder of catalog sizes (distractors added to a surface) and report selection accuracy and schema tokens against tool count',
    )
    .requiredOption('--surface <id>', 'the base surface')
    .requiredOption('--sizes <list>', 'tool counts of the rungs, comma-separated, e.g. 5,10,20,40')
    .option('--root <dir>', 'project root', process.cwd())
    .option('--domain <name>', 'the domain of the surface (when ids repeat)')
    .option(
      '--from <source>',
      'distractor source: generated | domain:NAME | file:PATH (repeatable; default generated)',
      collect,
    )
    .option('--seed <n>', 'seed of the distractor draw (default 0)')
    .option('--shuffle <seed>', 'also shuffle every rung with this seed')
    .option(
      '--loading <mode>',
      'loading modes of the rungs (repeatable or comma-separated): eager, deferred (default eager)',
      collect,
    )
    .option('--provider <spec>', 'provider (repeatable); default from toolmark.config.yaml', collect)
    .option('--split <split>', 'train | heldout | all')
    .option('--trials <n>', 'trials per task × rung × provider')
    .option('--task <glob>', 'only tasks whose id matches')
    .option('--concurrency <n>', 'trials at once')
    .option('--out <dir>', 'results folder')
    .option('--run-id <id>', 'run id (one folder name)')
    .option('--record <file>', 'write every model turn to this cassette (JSONL); replay it with --provider replay:FILE')
    .option('--allow-stale', 'replay cassettes even when the surface or tasks changed since recording')
    .option('--json', 'machine-readable output: the plan and the rows')
    .action((flags: SweepFlags) => sweepAction(flags));
}
