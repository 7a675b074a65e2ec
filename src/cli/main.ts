import { Command, CommanderError } from 'commander';
import { ConfigError } from '../spec/errors.ts';
import { printable } from './terminal-text.ts';
import { fileErrorLine } from './file-error.ts';

/**
 * Each command lives in its own module under ./commands and is imported only
 * when chosen, so `toolmark --help` stays fast (no SDKs, no renderers).
 * A command module exports `describe(program)` returning the configured
 * sub-command; its action sets the exit code through `setExitCode`.
 */
export interface CommandModule {
  describe(program: Command, setExitCode: (code: number) => void): Command;
}

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  validate: () => import('./commands/validate.ts'),
  tokens: () => import('./commands/tokens.ts'),
  run: () => import('./commands/run.ts'),
  merge: () => import('./commands/merge.ts'),
  report: () => import('./commands/report.ts'),
  contract: () => import('./commands/contract.ts'),
  compare: () => import('./commands/compare.ts'),
  gate: () => import('./commands/gate.ts'),
  import: () => import('./commands/import.ts'),
  init: () => import('./commands/init.ts'),
  sweep: () => import('./commands/sweep.ts'),
};

/**
 * The commands that stream a run's trials (and render its reports): they
 * get the heap policy of src/cli/heap-policy.ts, and hand memory back
 * between phases through the run library's `betweenPhases` hook.
 */
const STREAMING = new Set(['run', 'merge', 'report']);

/**
 * `toolmark … | head` closes the pipe before the output ends: that is the
 * reader's choice, not a failure of the command, which goes on (a run still
 * finishes and writes its folder); its further output goes nowhere.
 */
let stdoutGuarded = false;
function tolerateClosedStdout(): void {
  if (stdoutGuarded) return; // once per process: tests call main() many times
  stdoutGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const asksHelp = (arg: string) => arg === '--help' || arg === '-h';

export async function main(argv: string[]): Promise<number> {
  tolerateClosedStdout();
  let exitCode = 0;
  const setExitCode = (code: number) => {
    exitCode = Math.max(exitCode, code);
  };
  const program = new Command('toolmark')
    .description('Measure how well language models select and call tools, and whether a surface revision helps.')
    .exitOverride()
    .showHelpAfterError('(run toolmark <command> --help for usage)');

  // Register only the command being run (or all, cheaply, for --help).
  const chosen = argv.find((arg) => !arg.startsWith('-'));
  // A run's schema token counter (a child process: src/cost/schema-cost.ts) first of all: its
  // tokenizer load (~0.2 s of CPU) then falls in start-up, where the second core is idle, not
  // in the loading, where the cassette reader and the GC helpers want that core.
  const counter = chosen === 'run' && !argv.some(asksHelp) ? await import('../cost/schema-cost.ts') : null;
  counter?.startSchemaCounter();
  // Then the run's own modules (its action: the run library, ~0.65 MB of JavaScript besides zod),
  // asked for now, so node reads their files while this thread makes the command; the action
  // awaits the same module (./commands/run.ts). A failure is the action's to report, if it runs.
  if (counter) import('./commands/run-action.ts').catch(() => {});
  // zod before the heap policy's flag: compiled, it is compiled from the code cache the build made
  // under V8's default flags (src/spec/cached-script.ts), which V8 rejects once a flag is changed.
  if (counter) await import('../spec/zod-module.ts');
  // The one place the process's heap policy is set (library code never does).
  if (chosen !== undefined && STREAMING.has(chosen)) (await import('./heap-policy.ts')).limitHeapGrowth();
  const names = chosen && COMMANDS[chosen] ? [chosen] : Object.keys(COMMANDS);
  // All at once for `--help`: one import after the other waited for each file in turn
  // (`--help` 172 → 164 ms wall, median of 25 interleaved, load average ~5).
  const modules = await Promise.all(names.map((name) => COMMANDS[name]!()));
  for (const module of modules) module.describe(program, setExitCode);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not failures; usage errors are bad input.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${printable(error.message)}\n`);
      return 2;
    }
    const fileError = fileErrorLine(error);
    if (fileError) {
      process.stderr.write(`error: ${printable(fileError)}\n`);
      return 2;
    }
    process.stderr.write(
      `toolmark: internal error: ${printable(error instanceof Error ? (error.stack ?? '') : String(error))}\n`,
    );
    return 3;
  } finally {
    // A counter the command did not use (a bad flag, a resume that failed early) ends with it.
    counter?.stopSchemaCounter();
  }
}
