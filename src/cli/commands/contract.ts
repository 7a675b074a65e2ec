import type { Command } from 'commander';

/**
 * `toolmark contract`: replay the deterministic contract cases through the
 * wide runtime and the typed registry. Exit 1 when the typed registry fails
 * its gate. The implementation is imported only when the command runs.
 */
export function describe(program: Command, setExitCode: (code: number) => void): Command {
  return program
    .command('contract')
    .description(
      'Replay the contract cases through the wide tool and the typed registry (contract conformance, not model accuracy).',
    )
    .option('--cases <file>', 'contract case file', 'suites/tickets/contract-cases.yaml')
    .option('--out <dir>', 'folder for summary.json, report.md and cases.jsonl', 'results/contract')
    .option('--json', 'print the summary as JSON instead of the table')
    .action(async (options: { cases: string; out: string; json?: boolean }) => {
      const { runContract, renderContractTable } = await import('../../contract/index.ts');
      const { summary, files } = await runContract({ cases: options.cases, outDir: options.out });
      if (options.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else process.stdout.write(`${renderContractTable(summary)}\nwrote ${files.join(', ')}\n`);
      if (!summary.gate.passed) setExitCode(1);
    });
}
