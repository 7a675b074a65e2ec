import type { FailureScope } from '../../src/spec/errors.ts';
import { parseRetryAfter, readHeader, type HeaderSource } from './retry-after.ts';

/** What went wrong with one attempt, in terms the retry loop can act on. */
export interface AttemptFailure {
  kind: 'http' | 'timeout' | 'connection' | 'invalid-response' | 'other';
  /** HTTP status when the server answered with one. */
  status: number | null;
  retryable: boolean;
  /** Milliseconds the server asked us to wait, if it said. */
  retryAfterMs: number | null;
  /** Short description without headers; still to be redacted. */
  message: string;
}

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * 408 request timeout, 409 lock conflict, 429 rate limit and every 5xx
 * (incl. Anthropic's 529 overloaded) are worth another try; other 4xx are
 * the request's fault and would fail the same way again.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function errorName(error: unknown): string {
  if (!(error instanceof Error)) return '';
  // The openai SDK leaves `name` as "Error"; the class name is what tells them apart.
  return error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : error.name;
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** The server's own explanation from an SDK APIError (body `error.message`), else the error message. */
function httpMessage(error: Error, status: number): string {
  const body = (error as { error?: unknown }).error;
  const nested =
    body && typeof body === 'object' ? (body as { error?: { message?: unknown }; message?: unknown }) : undefined;
  const fromBody =
    typeof nested?.error?.message === 'string'
      ? nested.error.message
      : typeof nested?.message === 'string'
        ? nested.message
        : null;
  const text = fromBody ?? error.message.replace(new RegExp(`^${status}\\s*`), '');
  return text.trim() === '' ? `HTTP ${status}` : `HTTP ${status}: ${text.trim()}`;
}

/**
 * Classify whatever an SDK call threw. SDK-agnostic on purpose: it reads
 * `status` and `headers` off an APIError-shaped object and recognises
 * connection failures by class name or low-level error code, so the same
 * retry loop serves the openai and anthropic SDKs (and plain fetch).
 */
export function classifyFailure(error: unknown, now: number = Date.now()): AttemptFailure {
  const name = errorName(error);
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') {
      const headers = (error as { headers?: HeaderSource }).headers;
      const shouldRetry = readHeader(headers, 'x-should-retry');
      const retryable = shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : isRetryableStatus(status);
      return {
        kind: 'http',
        status,
        retryable,
        retryAfterMs: parseRetryAfter(headers, now),
        message: httpMessage(error, status),
      };
    }
    if (/Timeout/.test(name)) {
      return { kind: 'timeout', status: null, retryable: true, retryAfterMs: null, message: 'request timed out' };
    }
    if (error instanceof SyntaxError) {
      return {
        kind: 'invalid-response',
        status: null,
        retryable: true,
        retryAfterMs: null,
        message: `response body is not valid JSON (truncated?): ${error.message}`,
      };
    }
    const code = causeCode(error);
    if (
      name === 'APIConnectionError' ||
      (code !== undefined && CONNECTION_CODES.has(code)) ||
      /^(fetch failed|terminated)$/.test(error.message)
    ) {
      const detail = code ?? (error.cause instanceof Error ? error.cause.message : error.message);
      return {
        kind: 'connection',
        status: null,
        retryable: true,
        retryAfterMs: null,
        message: `connection failed (${detail})`,
      };
    }
    return {
      kind: 'other',
      status: null,
      retryable: false,
      retryAfterMs: null,
      message: `${name || 'Error'}: ${error.message}`,
    };
  }
  return { kind: 'other', status: null, retryable: false, retryAfterMs: null, message: String(error) };
}

/** A 400/404 body that says the model does not exist (OpenAI `model_not_found`, vLLM, Ollama, Anthropic `not_found_error`). */
const UNKNOWN_MODEL = /model\b.*\b(not found|does not exist|not exist|unknown|no such)|unknown model|model_not_found/i;

/**
 * How far a failed attempt reaches (FailureScope): a bad key (401/403) or an
 * unknown model fails every request of the run; 400, 413 and 422 refuse
 * this request's content. Everything else is treated as transient.
 */
export function failureScope(failure: Pick<AttemptFailure, 'kind' | 'status' | 'message'>): FailureScope | null {
  if (failure.kind !== 'http' || failure.status === null) return null;
  if (failure.status === 401 || failure.status === 403) return 'run';
  if ((failure.status === 404 || failure.status === 400) && UNKNOWN_MODEL.test(failure.message)) return 'run';
  if (failure.status === 404) return 'run';
  if (failure.status === 400 || failure.status === 413 || failure.status === 422) return 'request';
  return null;
}
