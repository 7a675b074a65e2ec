import type { RetryPolicy } from './retry.ts';

/** Options every live adapter takes; an adapter adds its own on top. */
export interface LiveProviderOptions {
  model: string;
  /** Another endpoint (an OpenAI-compatible server, a gateway); default the vendor's API. */
  baseURL?: string;
  apiKey: string;
  /** Per-attempt timeout (default 60 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Optional cap on request starts per minute for this instance. */
  requestsPerMinute?: number;
  /** Requests in flight at once for this instance (default 8). */
  concurrency?: number;
  /** Output cap sent when the request's settings set none (providers/http/max-tokens.ts has the adapters' defaults). */
  defaultMaxTokens?: number;
  /** Retries after 429s allowed over all requests of this instance (default 100; retry-budget.ts). */
  rateLimitRetryBudget?: number;
  /** JSON Schema keywords left out of the tools payload (schema-keywords.ts); validation still uses them. */
  dropSchemaKeywords?: readonly string[];
  /** Provider id in results (default the adapter's name). */
  id?: string;
  /** Backoff tuning (tests shrink it). */
  retry?: Omit<RetryPolicy, 'maxRetries' | 'timeoutMs'>;
  /** Randomness for jitter (tests may fix it). */
  random?: () => number;
}
