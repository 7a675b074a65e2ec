import type { Command } from 'commander';

interface MergeFlags {
  out?: string;
  runId?: string;
  allowPartial?: boolean;
}

async function mergeAction(runs: string[], flags: MergeFlags): Promise<void> {
  const { mergeRuns } = await import('../../run/index.ts');
  const { releaseMemory } = await import('../heap-policy.ts');
  const { formatSummaryTable } = await import('../summary-table.ts');
  const { displayPath } = await import('../cli-helpers.ts');
  const result = await mergeRuns({
    runs,
    out: flags.out ?? 'results',
    runId: flags.runId,
    allowPartial: flags.allowPartial,
    events: { betweenPhases: releaseMemory, onNote: (note) => process.stderr.write(`note: ${note}\n`) },
  });
  process.stdout.write(`${formatSummaryTable(result.summary)}\n\n`);
  if (result.partial.length > 0) {
    const shards = result.partial.map((shard) => `${shard.run_id} (${shard.trials} of ${shard.planned} trials)`);
    process.stdout.write(`warning: PARTIAL merge: unfinished shards ${shards.join(', ')} (--allow-partial)\n`);
  }
  process.stdout.write(
    `merged ${result.merged} runs: ${result.trials} trials (${result.duplicates} duplicates dropped) → ${displayPath(result.runDir)}/\n`,
  );
}

/** `toolmark merge RUN… --out DIR`: shards of a CI matrix into one run. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('merge')
    .description(
      'Merge shard runs (toolmark run --shard i/n) into one run: trials deduplicated by identity, summary and reports re-made',
    )
    .argument('<runs...>', 'run folders (or run ids under --out) to merge')
    .option('--out <dir>', 'results folder for the merged run', 'results')
    .option('--run-id <id>', 'id of the merged run (default: timestamp + random suffix)')
    .option(
      '--allow-partial',
      'merge shards that did not finish; the merged run is marked partial in its manifest and reports',
    )
    .action(async (runs: string[], flags: MergeFlags) => mergeAction(runs, flags));
}
