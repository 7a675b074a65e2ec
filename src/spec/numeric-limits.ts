import { z } from 'zod';

/**
 * Bounds on numbers a user file may set, where a value the schema would
 * otherwise accept cannot be honoured (docs/reliability.md#9-numbers-the-code-cannot-honour):
 * Node's timers wait at most 2^31 − 1 ms (~24.8 days) and fire at once
 * beyond it, so a `timeout_ms: 3000000000` "timed out" every attempt
 * immediately; a rate below one a day waits longer than any timer; a plan
 * of a billion trials cannot be held in memory.
 */

/** Longest timeout (a provider attempt, a tool call): 24 h. The SDK backstop timer is twice that plus 1 s, still below 2^31 − 1 ms. */
export const MAX_TIMEOUT_MS = 86_400_000;
/** Slowest rate cap: one request a day (its window, 60 000 / rate ms, stays within a timer). */
export const MIN_REQUESTS_PER_MINUTE = 1 / 1_440;
/** Most attempts of a transient tool call. */
export const MAX_TOOL_ATTEMPTS = 100;
/** Most trials per task × surface × provider. */
export const MAX_TRIALS = 100_000;

/** How long user code may block the run's main thread by default (`run.user_code_limit_ms`): a handler in an endless loop. */
export const DEFAULT_USER_CODE_LIMIT_MS = 60_000;
/** Shortest such limit: below it a busy machine's pauses (GC, a starved process) would read as a blocked handler. */
export const MIN_USER_CODE_LIMIT_MS = 100;

/** `run.user_code_limit_ms`: MIN_USER_CODE_LIMIT_MS to MAX_TIMEOUT_MS. */
export const UserCodeLimitMs = z
  .number()
  .int()
  .min(
    MIN_USER_CODE_LIMIT_MS,
    `at least ${MIN_USER_CODE_LIMIT_MS} ms: a shorter limit would stop runs on ordinary pauses (garbage collection, a busy machine)`,
  )
  .max(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms (24 h): a longer timer cannot be armed (Node fires it at once)`);

/** A timeout in ms: a positive integer up to MAX_TIMEOUT_MS, with a message that says the range and why. */
export const TimeoutMs = z
  .number()
  .int()
  .positive()
  .max(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms (24 h): a longer timer cannot be armed (Node fires it at once)`);

/** Trials per task: 1 to MAX_TRIALS. */
export const TrialCount = z
  .number()
  .int()
  .positive()
  .max(
    MAX_TRIALS,
    `at most ${MAX_TRIALS} trials per task, surface and provider (a larger plan would not fit in memory)`,
  );
