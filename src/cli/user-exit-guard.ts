import { runningUserCode } from '../registry/index.ts';

/**
 * `process.exit()` called by user code during a run's trials (a tool
 * handler, a createState — after load, where src/load/user-code-guard.ts no
 * longer watches) must not end `toolmark run` with exit 0 and a run folder
 * that looks finished or silently stopped. While the trials run,
 * process.exit throws instead: the call fails like any throw of that code
 * (the trial records the error; the run goes on and saves everything), and
 * when the run is over `report()` says who called it and the exit code is 2.
 * Returns `restore` (our own exits, e.g. a second Ctrl-C, use the real one)
 * and `report`.
 */
export function guardUserExit(): { restore: () => void; report: (setExitCode: (code: number) => void) => void } {
  const exit = process.exit;
  const calls = new Map<string, number>();
  process.exit = ((code?: number | string | null) => {
    const who = runningUserCode() ?? `user code${userFrame(new Error().stack)}`;
    const what = `${who} called process.exit(${code ?? ''})`;
    calls.set(what, (calls.get(what) ?? 0) + 1);
    throw new Error(`${what}; user code must not end the process`);
  }) as typeof process.exit;
  return {
    restore: () => {
      process.exit = exit;
    },
    report: (setExitCode) => {
      for (const [what, count] of calls) {
        const times = count === 1 ? 'once' : `${count} times`;
        process.stderr.write(
          `error: ${what} during the run (${times}); user code must not end the process: each such call failed that trial (recorded as errored), the others ran\n`,
        );
      }
      if (calls.size > 0) setExitCode(2);
    },
  };
}

/** ` (at file:line)` of the first frame that is not toolmark's or node's, or ''. */
function userFrame(stack: string | undefined): string {
  const frame = (stack ?? '')
    .split('\n')
    .slice(1)
    .find((line) => !/user-exit-guard|node:internal|\/src\/|node_modules/.test(line));
  const where = frame?.match(/\(?([^()\s]+:\d+:\d+)\)?\s*$/)?.[1];
  return where ? ` (at ${where})` : '';
}
