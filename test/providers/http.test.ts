import { describe, expect, it } from 'vitest';
import { classifyFailure, isRetryableStatus } from '../../providers/http/classify.ts';
import { redactSecrets } from '../../providers/http/redact.ts';
import { createRequestGate } from '../../providers/http/request-gate.ts';
import { parseRetryAfter } from '../../providers/http/retry-after.ts';
import { backoffDelay, DEFAULT_RETRY_POLICY, withRetries } from '../../providers/http/retry.ts';
import { ProviderError } from '../../src/spec/errors.ts';

/** An APIError-shaped failure, as either SDK throws it. */
function apiError(status: number, headers: Record<string, string> = {}, message = `${status} failed`): Error {
  return Object.assign(new Error(message), { status, headers: new Headers(headers) });
}

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads seconds, fractions, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.25' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(1500);
    expect(parseRetryAfter({ 'Retry-After': '4' }, now)).toBe(4000);
  });
  it('is null when absent or unreadable', () => {
    expect(parseRetryAfter(new Headers(), now)).toBeNull();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(parseRetryAfter(new Headers({ 'retry-after': '-3' }), now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('backoffDelay', () => {
  const policy = {
    ...DEFAULT_RETRY_POLICY,
    initialDelayMs: 100,
    maxDelayMs: 1000,
    jitter: 0.25,
    maxRetryAfterMs: 5000,
  };
  it('doubles from the initial delay up to the ceiling, jitter only shortening it', () => {
    expect([0, 1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, { retryAfterMs: null }, policy, () => 0))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(backoffDelay(2, { retryAfterMs: null }, policy, () => 1)).toBe(300);
    expect(backoffDelay(2, { retryAfterMs: null }, policy, () => 0.5)).toBe(350);
  });
  it('uses retry-after as given, clamped to maxRetryAfterMs', () => {
    expect(backoffDelay(0, { retryAfterMs: 1234 }, policy, () => 0.9)).toBe(1234);
    expect(backoffDelay(0, { retryAfterMs: 60_000 }, policy, () => 0)).toBe(5000);
  });
});

describe('classifyFailure', () => {
  it('retries 408, 409, 429 and 5xx; not other 4xx', () => {
    expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 529].filter(isRetryableStatus)).toEqual([
      408, 409, 429, 500, 502, 503, 529,
    ]);
  });
  it('honours x-should-retry over the status', () => {
    expect(classifyFailure(apiError(500, { 'x-should-retry': 'false' })).retryable).toBe(false);
    expect(classifyFailure(apiError(400, { 'x-should-retry': 'true' })).retryable).toBe(true);
  });
  it('prefers the body message of an APIError and keeps the status', () => {
    const error = Object.assign(apiError(429, { 'retry-after': '1' }), { error: { error: { message: 'slow down' } } });
    expect(classifyFailure(error)).toEqual({
      kind: 'http',
      status: 429,
      retryable: true,
      retryAfterMs: 1000,
      message: 'HTTP 429: slow down',
    });
  });
  it('recognises connection errors by code and truncated bodies by SyntaxError', () => {
    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    expect(classifyFailure(reset)).toMatchObject({
      kind: 'connection',
      retryable: true,
      message: 'connection failed (ECONNRESET)',
    });
    expect(classifyFailure(new SyntaxError('Unexpected end of JSON input'))).toMatchObject({
      kind: 'invalid-response',
      retryable: true,
    });
    expect(classifyFailure(new RangeError('bug'))).toMatchObject({ kind: 'other', retryable: false });
  });
});

describe('redactSecrets', () => {
  it('removes the known key and anything shaped like a key or auth header', () => {
    const text =
      'key my-custom-secret-value; sk-ant-api03-abcdefghijkl; Authorization: Bearer abc.def; {"x-api-key":"zzz999"}; api_key=hello123';
    const redacted = redactSecrets(text, ['my-custom-secret-value']);
    expect(redacted).toBe(
      'key [redacted]; [redacted]; Authorization: [redacted]; {"x-api-key":"[redacted]"}; api_key=[redacted]',
    );
  });
  it('leaves ordinary text alone', () => {
    expect(redactSecrets('HTTP 500: The server had an error', ['sk-long-secret'])).toBe(
      'HTTP 500: The server had an error',
    );
  });
});

describe('withRetries', () => {
  it('retries retryable failures with the computed waits, then succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const outcome = await withRetries(
      async () => {
        calls += 1;
        if (calls === 1) throw apiError(429, { 'retry-after': '7' });
        if (calls === 2) throw apiError(503);
        return 'done';
      },
      { label: 'test', maxRetries: 3, initialDelayMs: 10, jitter: 0, sleep: async (ms) => void waits.push(ms) },
    );
    expect(outcome.value).toBe('done');
    expect(waits).toEqual([7000, 20]);
    expect(outcome.retries.map((note) => note.attempt)).toEqual([1, 2]);
  });

  it('throws a ProviderError at once for a non-retryable failure', async () => {
    let calls = 0;
    const error = await withRetries(
      async () => {
        calls += 1;
        throw apiError(404, {}, '404 model not found');
      },
      { label: 'test', sleep: async () => {} },
    ).catch((caught: unknown) => caught);
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 404, retryable: false, message: 'test: HTTP 404: model not found' });
  });

  it('stops after maxRetries with the last status and retry-after', async () => {
    let calls = 0;
    const error = (await withRetries(
      async () => {
        calls += 1;
        throw apiError(429, { 'retry-after': '2' });
      },
      { label: 'test', maxRetries: 2, sleep: async () => {} },
    ).catch((caught: unknown) => caught)) as ProviderError;
    expect(calls).toBe(3);
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(2);
    expect(error.message).toMatch(/after 3 attempts/);
  });

  it('aborting during backoff rethrows the caller reason without another attempt', async () => {
    const controller = new AbortController();
    let calls = 0;
    const promise = withRetries(
      async () => {
        calls += 1;
        throw apiError(500);
      },
      { label: 'test', initialDelayMs: 60_000, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(promise).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });
});

describe('createRequestGate', () => {
  it('never runs more than `concurrency` attempts at once', async () => {
    const gate = createRequestGate({ concurrency: 3 });
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        gate.run(async () => {
          active += 1;
          peak = Math.max(peak, active);
          await new Promise((resolve) => setTimeout(resolve, 5));
          active -= 1;
          return index;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 12 }, (_, index) => index));
    expect(peak).toBe(3);
  });

  it('admits at most requestsPerMinute starts in any 60 s window (fake clock)', async () => {
    let clock = 0;
    const starts: number[] = [];
    const gate = createRequestGate({
      concurrency: 10,
      requestsPerMinute: 2,
      now: () => clock,
      // Every sleeper wakes at the time it asked for; concurrent sleepers do not add up.
      sleep: async (ms) => {
        const wake = clock + ms;
        await Promise.resolve();
        clock = Math.max(clock, wake);
      },
    });
    await Promise.all(Array.from({ length: 5 }, () => gate.run(async () => void starts.push(clock))));
    expect(starts).toEqual([0, 0, 60_000, 60_000, 120_000]);
  });
});
