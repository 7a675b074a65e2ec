import type { Command } from 'commander';
import { ConfigError } from '../../spec/errors.ts';
import type { Comparison } from '../../spec/comparison.ts';

// The aggregate and report modules are imported inside the action, so `toolmark --help` stays fast.

interface CompareFlags {
  run?: string;
  split?: string;
  json?: boolean;
  root?: string;
  out?: string;
  seed?: string;
  jobSummary?: boolean;
}

function splitOf(text: string | undefined): 'train' | 'heldout' | 'all' | undefined {
  if (text === undefined) return undefined;
  if (text === 'train' || text === 'heldout' || text === 'all') return text;
  throw new ConfigError({
    file: '--split',
    field: text,
    message: `unknown split "${text}"`,
    expected: 'train, heldout or all',
  });
}

function seedOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seed = Number(text);
  if (!Number.isInteger(seed))
    throw new ConfigError({ file: '--seed', field: text, message: 'not a whole number', expected: 'an integer' });
  return seed;
}

async function compareAction(first: string, second: string | undefined, flags: CompareFlags): Promise<void> {
  const path = await import('node:path');
  const { loadConfig } = await import('../../load/config.ts');
  const aggregate = await import('../../aggregate/index.ts');
  const { readOptionalManifest, readTrials, repairIdleRunFolder } = await import('../../run-folder/index.ts');
  const { renderCompareMarkdown } = await import('../../report/compare-markdown.ts');

  const split = splitOf(flags.split);
  const seed = seedOf(flags.seed);
  const root = path.resolve(flags.root ?? '.');
  const issues: import('../../spec/errors.ts').ConfigIssue[] = [];
  const { config } = await loadConfig(root, issues);
  if (issues.length) throw new ConfigError(issues);
  const resultsDir = path.resolve(root, config.run.out);

  if (second === undefined) {
    throw new ConfigError({
      file: 'compare',
      message: 'two sides are needed',
      expected: 'RUN_A RUN_B, RUN:surfaceA RUN:surfaceB, or --run RUN surfaceA surfaceB',
    });
  }
  let refA: import('../../aggregate/index.ts').RunRef;
  let refB: import('../../aggregate/index.ts').RunRef;
  if (flags.run !== undefined) {
    const run = aggregate.resolveRunRef(flags.run, resultsDir, '--run');
    refA = { ...run, text: first, surface: first };
    refB = { ...run, text: second, surface: second };
  } else {
    refA = aggregate.resolveRunRef(first, resultsDir, 'A');
    try {
      refB = aggregate.resolveRunRef(second, resultsDir, 'B');
    } catch (error) {
      // `RUN:typed-v2 typed-v3`: after RUN:surface, a bare name that is no run is a surface of A's run.
      if (!(error instanceof ConfigError) || refA.surface === null || second.includes(':') || second.includes(path.sep))
        throw error;
      refB = { text: second, runDir: refA.runDir, runId: refA.runId, surface: second };
    }
  }

  const input = async (ref: import('../../aggregate/index.ts').RunRef) => {
    for (const note of repairIdleRunFolder(ref.runDir, 'compare')) process.stderr.write(`note: ${note}\n`);
    const manifest = readOptionalManifest(ref.runDir);
    return {
      label: ref.text,
      runId: manifest?.run_id ?? ref.runId,
      runDir: ref.runDir,
      surface: ref.surface,
      synthetic: manifest?.providers.some((provider) => provider.synthetic) ?? false,
      records: () => readTrials(ref.runDir),
    };
  };
  // compare.html and the PR report need the review (surface diff, transcripts); the terminal table alone does not.
  const wantsReview = flags.out !== undefined || flags.jobSummary === true;
  let comparison;
  let review: import('../../spec/index.ts').CompareReview | undefined;
  try {
    const [sideA, sideB] = [await input(refA), await input(refB)];
    if (wantsReview) {
      review = await aggregate.buildCompareReview(sideA, sideB, await reviewProject(root, config.prices), {
        split,
        seed,
      });
      comparison = review.comparison;
    } else
      comparison = await aggregate.compareSides(
        { ...sideA, records: sideA.records() },
        { ...sideB, records: sideB.records() },
        { split, seed },
      );
  } catch (error) {
    if (error instanceof aggregate.MissingSurfaceError) {
      throw new ConfigError({
        file: error.input.label,
        field: 'surface',
        message: error.message,
        expected: `one of: ${error.available.join(', ')}`,
      });
    }
    throw error;
  }
  if (comparison.pairing.pairs === 0) {
    throw new ConfigError({
      file: 'compare',
      message: comparison.pairing.split_trials
        ? `${refA.text} against itself pairs even with odd trials, and this run has no task with 2 or more completed trials`
        : nothingToPairMessage(comparison, refA.text, refB.text),
      expected: comparison.pairing.split_trials
        ? 'a run with --trials 2 or more, or two runs'
        : 'two runs or surfaces over the same tasks and trial numbers',
    });
  }
  const markdown = renderCompareMarkdown(comparison);
  process.stdout.write(flags.json ? `${JSON.stringify(comparison, null, 2)}\n` : markdown);
  if (review === undefined) return;
  const report = await import('../../report/compare-reports.ts');
  if (flags.out !== undefined) {
    const written = await report.writeCompareReports(flags.out, review);
    process.stderr.write(`wrote ${written.json}, ${written.markdown} (PR comment) and ${written.html}\n`);
  }
  if (flags.jobSummary) {
    const file = await report.appendJobSummary(review);
    process.stderr.write(
      file
        ? `appended the report to the job summary ${file}\n`
        : '--job-summary: GITHUB_STEP_SUMMARY is not set, nothing appended\n',
    );
  }
}

/** The project's surfaces and tasks for the surface diff and transcripts; a note instead when it cannot be loaded. */
async function reviewProject(
  root: string,
  prices: import('../../spec/index.ts').ProjectConfig['prices'],
): Promise<import('../../aggregate/index.ts').ReviewProject> {
  const { loadProject } = await import('../../load/index.ts');
  const { schemaCost: cost } = await import('../../cost/schema-cost.ts');
  try {
    const project = await loadProject(root);
    return {
      surfaces: project.domains.flatMap((domain) => domain.surfaces),
      tasks: project.domains.flatMap((domain) => domain.tasks),
      prices,
      cost,
    };
  } catch (error) {
    const reason = error instanceof ConfigError ? error.message.split('\n')[0] : String(error);
    return {
      surfaces: null,
      tasks: null,
      prices,
      cost,
      notes: [`The project at ${root} could not be loaded (${reason}): no surface diff, no task messages.`],
    };
  }
}

/** `toolmark compare A B`: two surfaces of one run, or two runs, paired trial by trial. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('compare')
    .description(
      'Compare two surfaces of one run (RUN:a RUN:b, or --run RUN a b) or two runs (RUN_A RUN_B), paired by task and trial',
    )
    .argument('<a>', 'side A: RUN, RUN:surface, or a surface id with --run')
    .argument('[b]', "side B: RUN, RUN:surface, or a surface id (of --run, or of A's run)")
    .option('--run <run>', 'compare two surfaces of this run (A and B are surface ids)')
    .option('--split <split>', 'only this split: train | heldout | all (default: each of them)')
    .option('--json', 'print the comparison as JSON')
    .option('--out <dir>', 'also write comparison.json, report.md (a PR comment) and compare.html into this folder')
    .option('--job-summary', 'append report.md to the CI job summary ($GITHUB_STEP_SUMMARY) when it is set')
    .option('--seed <n>', 'bootstrap seed (default 20240501)')
    .option('--root <dir>', 'project root (default: current folder); run ids resolve under its results folder')
    .action(async (a: string, b: string | undefined, flags: CompareFlags) => compareAction(a, b, flags));
}

/**
 * Why two sides share nothing to pair, naming the cause: a side whose every
 * trial errored says so with its first provider failure (a bad key, a dead
 * server), rather than the generic "share no completed (task, trial)".
 */
function nothingToPairMessage(comparison: Comparison, textA: string, textB: string): string {
  const failed = [
    { text: textA, side: comparison.a },
    { text: textB, side: comparison.b },
  ].filter(({ side }) => side.trials > 0 && side.errored === side.trials);
  if (failed.length > 0)
    return failed
      .map(
        ({ text, side }) =>
          `every trial of ${text} errored (${side.errored} of ${side.trials}, provider failures, nothing scored): ${side.first_error}`,
      )
      .join('; ');
  if (comparison.pairing.errored > 0)
    return `${textA} and ${textB} have no (task, trial) completed on both sides: all ${comparison.pairing.errored} pairs were dropped because a trial errored (provider failures, nothing scored; the "Errors" section of each run's report.md names them)`;
  return `${textA} and ${textB} share no completed (task, trial) to pair`;
}
