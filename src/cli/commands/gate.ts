import type { Command } from 'commander';
import { ConfigError, type ConfigIssue } from '../../spec/errors.ts';

// The aggregate module is imported inside the action, so `toolmark --help` stays fast.

interface GateFlags {
  baseline: string;
  root?: string;
  json?: boolean;
}

async function gateAction(runText: string, flags: GateFlags, setExitCode: (code: number) => void): Promise<void> {
  const path = await import('node:path');
  const { loadConfig } = await import('../../load/config.ts');
  const aggregate = await import('../../aggregate/index.ts');
  const { RUN_FILES, checkRunFiles, readTrials, repairIdleRunFolder } = await import('../../run-folder/index.ts');
  const { existsSync } = await import('node:fs');

  const root = path.resolve(flags.root ?? '.');
  const issues: ConfigIssue[] = [];
  const { config } = await loadConfig(root, issues);
  if (issues.length) throw new ConfigError(issues);
  const resultsDir = path.resolve(root, config.run.out);
  const run = aggregate.resolveRunRef(runText, resultsDir, 'RUN');
  const baseline = aggregate.resolveRunRef(flags.baseline, resultsDir, '--baseline');
  // What a killed writer left is finished or undone first; a missing or torn summary or report is noted
  // (the gate reads only trials.jsonl, but such a run did not finish, or its reports cannot be trusted).
  const warnings: string[] = [];
  for (const ref of [run, baseline]) {
    for (const note of repairIdleRunFolder(ref.runDir, 'gate')) process.stderr.write(`note: ${note}\n`);
    // A folder without a manifest holds trials written by other means: it never had reports.
    if (!existsSync(path.join(ref.runDir, RUN_FILES.manifest))) continue;
    for (const { file, problem } of checkRunFiles(ref.runDir)) {
      const summary = file.endsWith(RUN_FILES.summary);
      warnings.push(
        summary && problem === 'missing'
          ? `${ref.text} has no summary.json: the run did not finish (\`toolmark run --resume ${ref.text}\`)`
          : `${path.relative(process.cwd(), file) || file} is ${problem}: ${summary ? `rebuild it with \`toolmark report ${ref.text} --rescore\`` : `re-render it with \`toolmark report ${ref.text}\``}`,
      );
    }
  }

  // `RUN:surface` narrows a side to one surface.
  async function* records(ref: typeof run) {
    for await (const record of readTrials(ref.runDir))
      if (ref.surface === null || record.surface === ref.surface) yield record;
  }
  let result;
  try {
    result = await aggregate.evaluateGate(
      { runId: run.runId, records: records(run) },
      { records: records(baseline) },
      config.gate,
      config.prices,
    );
  } catch (error) {
    if (error instanceof aggregate.GateInputError) throw new ConfigError({ file: 'gate', message: error.message });
    throw error;
  }

  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ run: run.text, baseline: baseline.text, gate: config.gate, ...result, warnings: [...warnings, ...result.warnings] }, null, 2)}\n`,
    );
  } else {
    const lines = [`gate: ${run.text} against baseline ${baseline.text}; ${result.scope}`];
    for (const check of result.checks) lines.push(`${check.pass ? 'PASS' : 'FAIL'}  ${check.subject}: ${check.detail}`);
    for (const warning of [...warnings, ...result.warnings]) lines.push(`warn  ${warning}`);
    for (const note of result.notes) lines.push(`note  ${note}`);
    const failed = result.checks.filter((check) => !check.pass).length;
    lines.push(
      failed === 0
        ? `gate passed: ${result.checks.length} thresholds met`
        : `gate failed: ${failed} of ${result.checks.length} thresholds not met`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  if (!result.pass) setExitCode(1);
}

/** `toolmark gate RUN --baseline RUN`: thresholds from config.gate; exit 1 when one fails. */
export function describe(program: Command, setExitCode: (code: number) => void): Command {
  return program
    .command('gate')
    .description(
      'Check a run against a baseline run with the thresholds in toolmark.config.yaml (gate:); exit 1 when one fails',
    )
    .argument('<run>', 'the run to check: run id or folder (RUN:surface for one surface)')
    .requiredOption('--baseline <run>', 'the baseline run: run id or folder (RUN:surface for one surface)')
    .option('--json', 'print the checks as JSON')
    .option('--root <dir>', 'project root (default: current folder); run ids resolve under its results folder')
    .action(async (runText: string, flags: GateFlags) => gateAction(runText, flags, setExitCode));
}
