/** A count of retries shared by every request of one provider instance. */
export interface RetryBudget {
  readonly total: number;
  readonly spent: number;
  /** Use one retry; false when none is left. */
  take(): boolean;
}

/** Retries after 429s allowed per provider over a whole run (docs/providers.md#rate-limits). */
export const DEFAULT_RATE_LIMIT_RETRY_BUDGET = 100;

/**
 * A total retry budget. Per-request retries alone let endless 429s without
 * `retry-after` go on for the whole run (684 requests in 74 s, exit 0);
 * with a total, the run stops with one message once it is spent.
 */
export function createRetryBudget(total: number = DEFAULT_RATE_LIMIT_RETRY_BUDGET): RetryBudget {
  let spent = 0;
  return {
    total,
    get spent() {
      return spent;
    },
    take() {
      if (spent >= total) return false;
      spent += 1;
      return true;
    },
  };
}
