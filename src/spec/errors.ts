/**
 * The three kinds of failure are kept apart (STYLE.md):
 * - ConfigError: bad input found before any model call → exit 2.
 * - ProviderError: a provider call failed (status, retryability, cause).
 * - model misbehaviour is data on the trial record, never an exception.
 */

export interface ConfigIssue {
  file: string;
  line?: number;
  column?: number;
  /** Dotted path of the offending field, e.g. `tasks[3].expect.action`. */
  field?: string;
  message: string;
  /** What was expected, in words. */
  expected?: string;
  suggestion?: string;
}

export function formatConfigIssue(issue: ConfigIssue): string {
  const where = [issue.file, issue.line, issue.column].filter((part) => part !== undefined).join(':');
  const field = issue.field ? ` ${issue.field}:` : '';
  const expected = issue.expected ? ` (expected ${issue.expected})` : '';
  const suggestion = issue.suggestion ? `; did you mean ${issue.suggestion}?` : '';
  return `${where}:${field} ${issue.message}${expected}${suggestion}`;
}

/** Bad input: one or more issues, each naming file, line and field. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue | ConfigIssue[]) {
    const list = Array.isArray(issues) ? issues : [issues];
    super(list.map(formatConfigIssue).join('\n'));
    this.name = 'ConfigError';
    this.issues = list;
  }
}

/**
 * How far a provider failure reaches, beyond this attempt:
 * - `run`: no request of this provider will succeed (bad key 401/403, unknown
 *   model, rate-limit retry budget spent) — the run stops early;
 * - `request`: the server refuses this request's content every time (400,
 *   422, an identical 500 twice) — another conversation may pass.
 */
export type FailureScope = 'run' | 'request';

/** A failed provider call. Never contains request headers or keys. */
export class ProviderError extends Error {
  readonly status: number | null;
  readonly retryable: boolean;
  /** Seconds the server asked us to wait (from `retry-after`), if any. */
  readonly retryAfterSeconds: number | null;
  /** Null: transient as far as we know (timeouts, 503s that ran out of retries). */
  readonly scope: FailureScope | null;
  /** Wall time spent on the failed call's attempts and backoff, when measured. */
  readonly elapsedMs: number | null;
  constructor(
    message: string,
    options: {
      status?: number | null;
      retryable: boolean;
      retryAfterSeconds?: number | null;
      cause?: unknown;
      scope?: FailureScope | null;
      elapsedMs?: number | null;
    },
  ) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
    this.status = options.status ?? null;
    this.retryable = options.retryable;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.scope = options.scope ?? null;
    this.elapsedMs = options.elapsedMs ?? null;
  }
}

/**
 * A tool's environment failed — an MCP server died or could not start, a
 * transport or protocol failure. Not the model's doing and not a tool
 * answer: the registry lets it through and the trial is recorded as
 * errored, never scored as a model miss.
 */
export class ToolEnvironmentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolEnvironmentError';
  }
}
