/**
 * Retries after 429s, shared by every request of one provider instance and
 * counted in a row: a request that succeeds gives the whole budget back.
 */
export interface RetryBudget {
  readonly total: number;
  /** Retries taken since the last successful request. */
  readonly spent: number;
  /** Use one retry; false when none is left. */
  take(): boolean;
  /** A request of this provider succeeded: the rate limit is healing, so the count starts again. */
  succeeded(): void;
}

/** Retries after 429s allowed in a row, with no request succeeding in between (docs/providers.md#rate-limits). */
export const DEFAULT_RATE_LIMIT_RETRY_BUDGET = 100;

/**
 * A budget of retries after 429s in a row. Per-request retries alone let
 * endless 429s without `retry-after` go on for the whole run (684 requests
 * in 74 s, exit 0); with a budget, the run stops with one message once it is
 * spent. Why "in a row" rather than a total over the run: a long run against
 * a rate limit that heals (some 429s, each followed by a success after
 * `retry-after`) must not die after its hundredth 429 — only a limit under
 * which nothing gets through any more is one that will not heal.
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
    succeeded() {
      spent = 0;
    },
  };
}
