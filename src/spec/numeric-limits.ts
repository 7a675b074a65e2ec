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
