import { ProviderError } from '../../src/spec/errors.ts';
import type { FailureScope } from '../../src/spec/errors.ts';
import { classifyFailure, failureScope, type AttemptFailure } from './classify.ts';
import type { RetryBudget } from './retry-budget.ts';
import { redactSecrets } from './redact.ts';
import type { RequestGate } from './request-gate.ts';
import { abortableSleep } from './sleep.ts';

/** How hard to try. Every field has a production default; tests shrink them. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Per-attempt timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** First backoff delay in ms (default 500); doubles each retry. */
  initialDelayMs?: number;
  /** Backoff ceiling in ms (default 20 000). */
  maxDelayMs?: number;
  /** Longest `retry-after` honoured as given (default 60 000); longer waits are clamped to it. */
  maxRetryAfterMs?: number;
  /** Fraction of the backoff that is randomised (default 0.25). */
  jitter?: number;
}

export interface RetryOptions extends RetryPolicy {
  /** Names the call in error messages, e.g. `openai chat gpt-4.1-mini`. */
  label: string;
  /** Known secrets (the API key) scrubbed from every message. */
  secrets?: readonly string[];
  /** The caller's signal: aborting it stops at once and rethrows its reason. */
  signal?: AbortSignal;
  /** Concurrency / rate gate each attempt passes through. */
  gate?: RequestGate;
  /** Retries after 429s in a row, shared by every request of the provider; once spent, a 429 stops the run. */
  rateLimitBudget?: RetryBudget;
  random?: () => number;
  /** Told of each retry as it is decided (the CLI prints it with its cause). */
  onRetry?(note: RetryNote): void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** One failed attempt that was retried, for the turn's warnings. */
export interface RetryNote {
  attempt: number;
  failure: string;
  waitedMs: number;
}

export interface RetryOutcome<T> {
  value: T;
  /** Duration of the successful attempt alone (no queueing, no backoff). */
  latencyMs: number;
  retries: RetryNote[];
}

export const DEFAULT_RETRY_POLICY: Required<RetryPolicy> = {
  maxRetries: 3,
  timeoutMs: 60_000,
  initialDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  jitter: 0.25,
};

/**
 * Delay before retry number `retry` (0-based): the server's `retry-after`
 * when it gave one (clamped), else exponential backoff with jitter that only
 * ever shortens the delay, so the ceiling stays a ceiling.
 */
export function backoffDelay(
  retry: number,
  failure: Pick<AttemptFailure, 'retryAfterMs'>,
  policy: Required<RetryPolicy>,
  random: () => number,
): number {
  if (failure.retryAfterMs !== null) return Math.min(failure.retryAfterMs, policy.maxRetryAfterMs);
  const base = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return base * (1 - policy.jitter * random());
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`request timed out after ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

/** Run one attempt with its own timeout; the attempt gets a signal that fires on timeout or caller abort. */
async function runAttempt<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  parent?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  // The error is built only when the timer fires: capturing a stack per attempt is measurable at thousands of requests.
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(timeoutMs)), timeoutMs);
  const signal = parent ? AbortSignal.any([parent, controller.signal]) : controller.signal;
  try {
    return await attempt(signal);
  } catch (error) {
    if (parent?.aborted) throw parent.reason;
    // Whatever the SDK made of the abort (APIUserAbortError, AbortError, "terminated"), it was our timer.
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function describeFailure(error: unknown, now: number): AttemptFailure {
  if (error instanceof AttemptTimeout)
    return { kind: 'timeout', status: null, retryable: true, retryAfterMs: null, message: error.message };
  return classifyFailure(error, now);
}

/**
 * Call `attempt` until it succeeds, retrying on 429, 5xx, connection errors,
 * truncated bodies and timeouts with backoff and jitter, honouring
 * `retry-after`. When retries run out, or on a non-retryable failure (other
 * 4xx), throws a ProviderError whose message is redacted and never carries
 * headers, with its FailureScope. A 500 that repeats word for word is the
 * server failing on this request, not a hiccup: it is not retried a third
 * time (llama.cpp answers 500 to a schema it cannot compile, every time).
 * Aborting `signal` rethrows the signal's reason unchanged.
 */
export async function withRetries<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<RetryOutcome<T>> {
  const policy: Required<RetryPolicy> = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    timeoutMs: options.timeoutMs ?? DEFAULT_RETRY_POLICY.timeoutMs,
    initialDelayMs: options.initialDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    jitter: options.jitter ?? DEFAULT_RETRY_POLICY.jitter,
  };
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const secrets = options.secrets ?? [];
  const retries: RetryNote[] = [];
  const began = performance.now();
  let previous: string | null = null;

  for (let attemptNumber = 1; ; attemptNumber += 1) {
    options.signal?.throwIfAborted();
    let started = 0;
    try {
      const run = () => {
        started = performance.now();
        return runAttempt(attempt, policy.timeoutMs, options.signal);
      };
      const value = options.gate ? await options.gate.run(run, options.signal) : await run();
      options.rateLimitBudget?.succeeded();
      return { value, latencyMs: performance.now() - started, retries };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure = describeFailure(error, now());
      const message = redactSecrets(failure.message, secrets);
      const exhausted = attemptNumber > policy.maxRetries;
      const repeated = failure.status === 500 && previous === message;
      previous = failure.status === 500 ? message : null;
      const budgetSpent =
        failure.status === 429 &&
        failure.retryable &&
        !exhausted &&
        options.rateLimitBudget !== undefined &&
        !options.rateLimitBudget.take();
      if (!failure.retryable || exhausted || repeated || budgetSpent) {
        const tries = attemptNumber === 1 ? '' : ` (after ${attemptNumber} attempts)`;
        const why = repeated
          ? '; the same 500 twice, so not retried again'
          : budgetSpent
            ? `; the ${options.rateLimitBudget!.total} retries allowed after 429s in a row (no request succeeding in between) are spent`
            : '';
        const scope: FailureScope | null = budgetSpent ? 'run' : repeated ? 'request' : failureScope(failure);
        throw new ProviderError(`${options.label}: ${message}${tries}${why}`, {
          status: failure.status,
          retryable: failure.retryable && !repeated && !budgetSpent,
          retryAfterSeconds: failure.retryAfterMs === null ? null : failure.retryAfterMs / 1000,
          // The SDK error holds the response headers; keep only a redacted summary as the cause.
          cause: { kind: failure.kind, status: failure.status, message },
          scope,
          elapsedMs: performance.now() - began,
        });
      }
      const wait = backoffDelay(attemptNumber - 1, failure, policy, random);
      const note = { attempt: attemptNumber, failure: message, waitedMs: Math.round(wait) };
      retries.push(note);
      options.onRetry?.(note);
      await sleep(wait, options.signal);
    }
  }
}

/** One warning line per retried attempt, for ModelTurn.warnings. */
export function retryWarnings(retries: readonly RetryNote[]): string[] {
  return retries.map((note) => `attempt ${note.attempt} failed (${note.failure}); retried after ${note.waitedMs} ms`);
}
