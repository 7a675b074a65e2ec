import type { Command } from 'commander';
import type { ChartWorker } from '../../report/html/chart-worker.ts';

interface ReportFlags {
  root: string;
  browserTrials: string;
  rescore?: boolean;
}

async function reportAction(run: string, flags: ReportFlags): Promise<void> {
  // Nothing to re-grade: answered before the schemas and the run-folder library load (src/run/rescore-quick-check.ts).
  if (flags.rescore && /^\d+$/.test(flags.browserTrials)) {
    const { unchangedRunFolder, nothingToRescoreMessage } = await import('../../run/rescore-quick-check.ts');
    const { resolve } = await import('node:path');
    if (unchangedRunFolder(run, flags.root) !== null) {
      process.stdout.write(nothingToRescoreMessage(resolve(flags.root)));
      return;
    }
  }
  // A partial re-score's critical path is the chart worker (Vega's import and drawing, src/run/rescore-run.ts):
  // started now, on the second core, before anything loads; the re-score stops it when it has no use for it.
  const charts = flags.rescore ? (await import('../../report/html/chart-worker.ts')).startChartWorker() : undefined;
  try {
    await reportWith(run, flags, charts);
  } finally {
    charts?.stop();
  }
}

async function reportWith(run: string, flags: ReportFlags, charts: ChartWorker | undefined): Promise<void> {
  const { ConfigError, GateConfig } = await import('../../spec/index.ts');
  const { checkRunFiles, locateRun, openRunFolder } = await import('../../run-folder/index.ts');
  const { guardFinishing } = await import('../finish-interrupt.ts');
  const { loadConfig } = await import('../../load/config.ts');
  const { renderRunReports } = await import('../../report/index.ts');
  const { stat } = await import('node:fs/promises');
  const { relative, resolve } = await import('node:path');

  const sampleLimit = Number(flags.browserTrials);
  if (!Number.isInteger(sampleLimit) || sampleLimit < 0) {
    throw new ConfigError({
      file: '(command line)',
      field: '--browser-trials',
      message: `"${flags.browserTrials}" is not a count`,
      expected: 'a whole number ≥ 0',
    });
  }
  // Only the config is read (gate thresholds, results folder): re-rendering an
  // old run must not depend on today's suites still loading.
  const issues: import('../../spec/index.ts').ConfigIssue[] = [];
  const { config } = await loadConfig(resolve(flags.root), issues);
  if (issues.length > 0) throw new ConfigError(issues);
  const gate = config.gate ?? GateConfig.parse({});
  const runDir = locateRun(run, resolve(flags.root, config.run.out), 'RUN');
  const shownRun = relative(process.cwd(), runDir) || runDir;
  // Ctrl-C while the files are written: the old ones stay whole (every file is renamed into place).
  const unguard = guardFinishing(runDir, `toolmark report ${shownRun}${flags.rescore ? ' --rescore' : ''}`);
  let written: string[];
  try {
    if (flags.rescore) written = await rescore(runDir, resolve(flags.root), sampleLimit, charts);
    else {
      // The folder is this command's while it renders; what a killed writer left is finished or undone first.
      const lock = openRunFolder(runDir, 'report');
      try {
        for (const note of lock.notes) process.stderr.write(`note: ${note}\n`);
        for (const { file, problem } of checkRunFiles(runDir)) {
          if (problem === 'torn' && !file.endsWith('summary.json'))
            process.stderr.write(`note: ${relative(process.cwd(), file)} was ${problem}; writing it again\n`);
        }
        written = Object.values(await renderRunReports(runDir, { gate, sampleLimit }));
      } finally {
        lock.release();
      }
    }
  } finally {
    unguard();
  }
  for (const path of written) {
    const { size } = await stat(path);
    const shown = relative(process.cwd(), path);
    process.stdout.write(`wrote ${shown.startsWith('..') ? path : shown} (${size.toLocaleString('en-US')} bytes)\n`);
  }
}

/**
 * `--rescore`: grade every trial again against the project's tasks (only the
 * run's domains are loaded), then write summary.json and the reports. Prints
 * what changed; returns the report paths.
 */
async function rescore(
  runDir: string,
  root: string,
  sampleLimit: number,
  charts: ChartWorker | undefined,
): Promise<string[]> {
  const { runFile } = await import('../../run-folder/index.ts');
  const { REPORT_FILES } = await import('../../report/index.ts');
  // Not through src/run/index.ts: the run, merge and sweep code it also loads is not needed here.
  const { rescoreRun } = await import('../../run/rescore-run.ts');
  const { nothingToRescoreMessage } = await import('../../run/rescore-quick-check.ts');
  const { releaseMemory } = await import('../heap-policy.ts');
  const { join } = await import('node:path');
  const result = await rescoreRun({
    runDir,
    root,
    sampleLimit,
    events: { betweenPhases: releaseMemory, onNote: (note) => process.stderr.write(`note: ${note}\n`) },
    skipUnchanged: true,
    charts,
  });
  if (result.unchanged) {
    process.stdout.write(nothingToRescoreMessage(root));
    return [];
  }
  const trials = result.trials.toLocaleString('en-US');
  process.stdout.write(
    `re-scored ${trials} trials against the tasks in ${root}: ${result.changed.toLocaleString('en-US')} with changed verdicts${result.changed > 0 ? ' (trials.jsonl rewritten)' : ''}\n`,
  );
  const flips = [...result.flips.entries()].sort(([left], [right]) => left.localeCompare(right));
  for (const [task, { nowPass, nowFail }] of flips.slice(0, 20)) {
    process.stdout.write(
      `  ${task}: ${[nowPass > 0 ? `${nowPass} now pass` : '', nowFail > 0 ? `${nowFail} now fail` : ''].filter(Boolean).join(', ')}\n`,
    );
  }
  if (flips.length > 20) process.stdout.write(`  … and ${flips.length - 20} more tasks\n`);
  return [runFile(runDir, 'summary'), ...Object.values(REPORT_FILES).map((name) => join(runDir, name))];
}

/** `toolmark report RUN`: re-render report.md, report.html and junit.xml from a run folder; `--rescore` grades it again first. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('report')
    .description(
      'Re-render report.md, report.html and junit.xml from a run folder (results/<run-id>/); with --rescore, grade its trials again first',
    )
    .argument('<run>', 'run folder, or a run id under the results folder')
    .option('--root <dir>', 'project root (for toolmark.config.yaml: gate thresholds, results folder)', process.cwd())
    .option('--browser-trials <n>', 'most trials embedded in the HTML trial browser (failures first)', '2000')
    .option(
      '--rescore',
      'grade every trial again against the tasks under --root as they are now (no model is called), then rewrite summary.json, the reports, and trials.jsonl if any verdict changed',
    )
    .action((run: string, flags: ReportFlags) => reportAction(run, flags));
}
