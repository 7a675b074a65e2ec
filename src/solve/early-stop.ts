import type { TrialRecord } from '../spec/index.ts';

/** Why a run stopped before its plan was done: one message for the user. */
export interface EarlyStopReason {
  provider: string;
  model: string;
  message: string;
}

/** Watches finished trials and says when the run should stop because its failures will not heal. */
export interface EarlyStop {
  /** A reason to stop after this trial, or null to go on. */
  observe(record: TrialRecord): EarlyStopReason | null;
}

/** First trials of a provider that, all failing the same way, stop the run (docs/runner.md#early-stop). */
export const SAME_FAILURE_LIMIT = 5;

// The attempt count differs between trials of one failure ("after 2 attempts" vs 4).
const sameFailure = (message: string) => message.replace(/ \(after \d+ attempts\)/, '');

/**
 * Stop a run whose provider failures will not heal, rather than spend every
 * planned trial on them (each possibly paid, each up to minutes of retries):
 * - at once, on a failure of scope `run` (bad key 401/403, unknown model,
 *   the 429 retry budget spent);
 * - when the first `limit` trials of a provider all errored with the same
 *   message (a server that refuses the tools payload, e.g. llama.cpp on a
 *   schema `pattern` it cannot compile).
 * A trial that completes clears its provider: later failures are counted
 * as errored trials, not a reason to stop.
 */
export function createEarlyStop(limit: number = SAME_FAILURE_LIMIT): EarlyStop {
  type Seen = { message: string | null; count: number; healthy: boolean };
  const first = new Map<string, Seen>();
  // The provider of the last trial: a run's trials mostly come from one, so no key is built per trial.
  let last: { provider: string; model: string; seen: Seen } | null = null;
  const reason = (record: TrialRecord, message: string): EarlyStopReason => ({
    provider: record.provider,
    model: record.model,
    message,
  });
  return {
    observe(record) {
      if (record.status === 'errored' && record.error?.scope === 'run') {
        return reason(record, `${record.error.message} — this fails every request, so the run stopped`);
      }
      if (last === null || last.provider !== record.provider || last.model !== record.model) {
        const key = `${record.provider}\n${record.model}`;
        let entry = first.get(key);
        if (entry === undefined) first.set(key, (entry = { message: null, count: 0, healthy: false }));
        last = { provider: record.provider, model: record.model, seen: entry };
      }
      const seen = last.seen;
      if (seen.healthy) return null;
      if (record.status !== 'errored') {
        seen.healthy = true;
        return null;
      }
      const message = sameFailure(record.error?.message ?? 'provider error');
      if (seen.message !== null && seen.message !== message) {
        seen.healthy = true;
        return null;
      }
      seen.message = message;
      seen.count += 1;
      return seen.count >= limit
        ? reason(record, `the first ${limit} trials all failed the same way: ${message}`)
        : null;
    },
  };
}
