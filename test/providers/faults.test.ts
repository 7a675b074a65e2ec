/** The fault matrix, run against every live adapter through its real SDK. */
import { describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../providers/anthropic/index.ts';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import { ProviderError } from '../../src/spec/errors.ts';
import type { Provider } from '../../src/spec/model.ts';
import { SENTINEL_KEY, sequence, fakeServerPerTest, wireFixture, type FakeHandler } from './fake-server.ts';
import { FAST_RETRY, sampleRequest } from './sample-request.ts';

type Wire = 'openai-chat' | 'openai-responses' | 'anthropic';
interface Limits {
  maxRetries?: number;
  timeoutMs?: number;
}

const ADAPTERS: { wire: Wire; make: (url: string, limits: Limits) => Provider }[] = [
  {
    wire: 'openai-chat',
    make: (url, limits) =>
      createOpenAIProvider({
        model: 'test-model',
        api: 'chat',
        apiKey: SENTINEL_KEY,
        baseURL: `${url}/v1`,
        retry: FAST_RETRY,
        ...limits,
      }),
  },
  {
    wire: 'openai-responses',
    make: (url, limits) =>
      createOpenAIProvider({
        model: 'test-model',
        api: 'responses',
        apiKey: SENTINEL_KEY,
        baseURL: `${url}/v1`,
        retry: FAST_RETRY,
        ...limits,
      }),
  },
  {
    wire: 'anthropic',
    make: (url, limits) =>
      createAnthropicProvider({
        model: 'test-model',
        apiKey: SENTINEL_KEY,
        baseURL: url,
        retry: FAST_RETRY,
        ...limits,
      }),
  },
];

const startServer = fakeServerPerTest();

async function setup(adapter: (typeof ADAPTERS)[number], handler: FakeHandler, limits: Limits = {}) {
  const server = await startServer(handler);
  return { server, provider: adapter.make(server.url, { timeoutMs: 5_000, ...limits }) };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe.each(ADAPTERS)('$wire faults', (adapter) => {
  const ok = () => ({ body: wireFixture(adapter.wire, 'one-tool-call') });
  const error = (status: number, name: string, headers: Record<string, string> = {}) => ({
    status,
    headers,
    body: wireFixture(adapter.wire, name),
  });

  it('429 with retry-after, then success: one retry, waiting what the server asked', async () => {
    const { server, provider } = await setup(
      adapter,
      sequence(error(429, 'error-429', { 'retry-after': '0.01' }), ok()),
    );
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls.map((call) => call.name)).toEqual(['ticket.get']);
    expect(server.requests).toHaveLength(2);
    expect(turn.warnings.join('\n')).toMatch(/attempt 1 failed \(HTTP 429: .*\); retried after 10 ms/);
    // The retry is the same request: same body both times.
    expect(server.requests[1]!.rawBody).toBe(server.requests[0]!.rawBody);
  });

  it('retry-after-ms wins over retry-after', async () => {
    const { provider } = await setup(
      adapter,
      sequence(error(429, 'error-429', { 'retry-after': '30', 'retry-after-ms': '3' }), ok()),
    );
    const turn = await provider.propose(sampleRequest());
    expect(turn.warnings.join('\n')).toMatch(/retried after 3 ms/);
  });

  it('503 until retries run out → ProviderError with status 503', async () => {
    const { server, provider } = await setup(adapter, sequence(error(503, 'error-500')), { maxRetries: 2 });
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(server.requests).toHaveLength(3);
    expect(thrown.status).toBe(503);
    expect(thrown.retryable).toBe(true);
    expect(thrown.scope).toBeNull();
    expect(thrown.message).toMatch(/HTTP 503: .*(server|Internal)/);
    expect(thrown.message).toMatch(/after 3 attempts/);
    expect(thrown.message).not.toContain(SENTINEL_KEY);
  });

  it('the same 500 twice is the request, not a hiccup: not retried a third time', async () => {
    const { server, provider } = await setup(adapter, sequence(error(500, 'error-500')), { maxRetries: 3 });
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(server.requests).toHaveLength(2);
    expect(thrown.status).toBe(500);
    expect(thrown.retryable).toBe(false);
    expect(thrown.scope).toBe('request');
    expect(thrown.message).toMatch(/after 2 attempts\); the same 500 twice, so not retried again/);
  });

  it('a 500 followed by success is retried as before', async () => {
    const { server, provider } = await setup(adapter, sequence(error(500, 'error-500'), ok()), { maxRetries: 3 });
    await provider.propose(sampleRequest());
    expect(server.requests).toHaveLength(2);
  });

  it('401 is a failure of the whole run (scope run)', async () => {
    const { provider } = await setup(
      adapter,
      sequence(error(401, adapter.wire === 'anthropic' ? 'error-400' : 'error-500')),
    );
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(thrown).toMatchObject({ status: 401, retryable: false, scope: 'run' });
  });

  it('a non-retryable 4xx fails at once', async () => {
    const { server, provider } = await setup(
      adapter,
      sequence(error(400, adapter.wire === 'anthropic' ? 'error-400' : 'error-500')),
    );
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(server.requests).toHaveLength(1);
    expect(thrown.status).toBe(400);
    expect(thrown.retryable).toBe(false);
  });

  it('a hung request is cut by the timeout, retried, then reported', async () => {
    const { server, provider } = await setup(adapter, sequence({ kind: 'hang' }), { timeoutMs: 100, maxRetries: 1 });
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(server.requests).toHaveLength(2);
    expect(thrown.status).toBeNull();
    expect(thrown.retryable).toBe(true);
    expect(thrown.message).toMatch(/timed out after 100 ms/);
  });

  it('a hung request then an answer succeeds', async () => {
    const { provider } = await setup(adapter, sequence({ kind: 'hang' }, ok()), { timeoutMs: 100 });
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls).toHaveLength(1);
    expect(turn.warnings.join('\n')).toMatch(/timed out/);
  });

  it('a truncated JSON body is retried; if it persists it is a ProviderError', async () => {
    const recovering = await setup(
      adapter,
      sequence({ kind: 'truncate', body: wireFixture(adapter.wire, 'one-tool-call') }, ok()),
    );
    const turn = await recovering.provider.propose(sampleRequest());
    expect(turn.tool_calls).toHaveLength(1);
    await recovering.server.close();

    const { server: broken, provider } = await setup(
      adapter,
      sequence({ kind: 'truncate', body: wireFixture(adapter.wire, 'one-tool-call') }),
      { maxRetries: 1 },
    );
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(broken.requests).toHaveLength(2);
    expect(thrown.message).toMatch(/not valid JSON/);
  });

  it('a connection reset is retried; if it persists it is a ProviderError', async () => {
    const recovering = await setup(adapter, sequence({ kind: 'reset' }, ok()));
    expect((await recovering.provider.propose(sampleRequest())).tool_calls).toHaveLength(1);
    await recovering.server.close();

    const { server: broken, provider } = await setup(adapter, sequence({ kind: 'reset' }), { maxRetries: 1 });
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(broken.requests).toHaveLength(2);
    expect(thrown.status).toBeNull();
    expect(thrown.message).toMatch(/connection failed/);
  });

  it('an error body that echoes the key is redacted', async () => {
    const echo = {
      status: 401,
      body: { error: { type: 'authentication_error', message: `Incorrect API key provided: ${SENTINEL_KEY}.` } },
    };
    const { provider } = await setup(adapter, sequence(echo));
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(thrown.status).toBe(401);
    expect(thrown.message).toMatch(/Incorrect API key provided: \[redacted\]/);
    expect(JSON.stringify({ message: thrown.message, cause: thrown.cause })).not.toContain(SENTINEL_KEY);
    expect(thrown.message).not.toMatch(/authorization|x-api-key|x-stainless/i);
  });

  it("the caller's abort stops at once with the caller's reason", async () => {
    const { provider } = await setup(adapter, sequence({ kind: 'hang' }));
    const controller = new AbortController();
    const reason = new Error('run interrupted');
    setTimeout(() => controller.abort(reason), 50);
    await expect(provider.propose(sampleRequest(), { signal: controller.signal })).rejects.toBe(reason);
  });
});

describe('openai-compatible server fixtures', () => {
  it('the 401 fixture echoing a key is redacted by pattern even when the key differs from ours', async () => {
    const server = await startServer(
      sequence({ status: 401, body: wireFixture('openai-chat', 'error-401-echo-key') }),
      { sentinel: 'not-this' },
    );
    const provider = createOpenAIProvider({
      model: 'm',
      api: 'chat',
      apiKey: 'sk-another-key-000000',
      baseURL: `${server.url}/v1`,
    });
    const thrown = await failure(provider.propose(sampleRequest()));
    expect(thrown.message).not.toContain('SENTINEL');
    expect(thrown.message).toContain('[redacted]');
  });
});

describe('concurrency cap and 429 storms (openai chat)', () => {
  it('never has more than `concurrency` requests in flight at the server', async () => {
    let active = 0;
    let peak = 0;
    const server = await startServer(async () => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active -= 1;
      return { body: wireFixture('openai-chat', 'text') };
    });
    const provider = createOpenAIProvider({
      model: 'm',
      api: 'chat',
      apiKey: SENTINEL_KEY,
      baseURL: `${server.url}/v1`,
      concurrency: 4,
    });
    await Promise.all(Array.from({ length: 40 }, () => provider.propose(sampleRequest())));
    expect(server.requests).toHaveLength(40);
    expect(peak).toBeLessThanOrEqual(4);
    expect(peak).toBeGreaterThan(1);
  });

  it('every request completes exactly once through a 429 storm', async () => {
    const answered = new Map<string, number>();
    const server = await startServer((request, index) => {
      if (index % 10 === 3)
        return { status: 429, headers: { 'retry-after': '0.01' }, body: wireFixture('openai-chat', 'error-429') };
      const question: string = request.body.messages.at(-1).content;
      answered.set(question, (answered.get(question) ?? 0) + 1);
      const body = structuredClone(wireFixture('openai-chat', 'text')) as {
        choices: { message: { content: string } }[];
      };
      body.choices[0]!.message.content = `answer to ${question}`;
      return { body };
    });
    const provider = createOpenAIProvider({
      model: 'm',
      api: 'chat',
      apiKey: SENTINEL_KEY,
      baseURL: `${server.url}/v1`,
      concurrency: 8,
      retry: FAST_RETRY,
    });
    const questions = Array.from({ length: 100 }, (_, index) => `question ${index}`);
    const turns = await Promise.all(
      questions.map((question) => provider.propose(sampleRequest({ messages: [{ role: 'user', content: question }] }))),
    );
    expect(turns.map((turn) => turn.text)).toEqual(questions.map((question) => `answer to ${question}`));
    expect([...answered.values()].every((count) => count === 1)).toBe(true);
    expect(answered.size).toBe(100);
    expect(server.requests.length).toBeGreaterThan(100);
  });
});
