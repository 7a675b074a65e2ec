import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { InFlightTrials } from '../solve/index.ts';

/**
 * User code blocked the run past `run.user_code_limit_ms` (the watchdog
 * calls this on the blocked main thread, src/cli/stuck-handler-watchdog.ts):
 * record the blocked trial as errored, so `--resume` does not run it again,
 * and return the one line to print as the process leaves, naming the
 * code, the trial, what was kept and how to go on (counted then: trials in
 * flight may still finish while the process cleans up). Synchronous:
 * nothing asynchronous runs until the blocked code is unwound.
 */
export function reportBlockedRun(
  inFlight: InFlightTrials,
  run: { runDir: string; limitMs: number; resume: string },
): () => string {
  const limit = `${run.limitMs} ms (run.user_code_limit_ms)`;
  const found = inFlight.recordBlocked(
    (what) =>
      `${what} did not return within ${limit}: an endless loop? The run was stopped; this trial is not retried on --resume`,
  );
  const where = found.trial
    ? ` in trial ${found.trial}`
    : ` in one of the trials in flight (${found.candidates.join('; ')}); run with --concurrency 1 to tell which`;
  return () => {
    const saved = savedTrials(run.runDir);
    const trials = `${saved} trial${saved === 1 ? '' : 's'} saved`;
    const kept = found.recorded
      ? `${trials} (this one as errored)`
      : `${trials} (the blocked one is not: it will run again on --resume)`;
    return `\nerror: ${found.what} blocked the run for more than ${limit}${where}; stopped: ${kept}; resume with: ${run.resume}\n`;
  };
}

function savedTrials(runDir: string): number {
  let lines = 0;
  try {
    for (const byte of readFileSync(path.join(runDir, 'trials.jsonl'))) if (byte === 10) lines += 1;
  } catch {
    // no trials.jsonl yet: none saved
  }
  return lines;
}
