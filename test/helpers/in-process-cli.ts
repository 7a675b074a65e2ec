/**
 * The CLI's entry point in this process, stdout and stderr captured: the
 * same code path as `node bin/toolmark.js` minus the Node start-up, for
 * tests with many rows. Process-level behaviour (signals, exit codes of the
 * process itself) needs `runCli` from ./cli.ts.
 */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CliResult } from './cli.ts';

export async function runInProcess(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await main(args);
    return { code, signal: null, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
