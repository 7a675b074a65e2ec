import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRegistry, MemoryReceiptStore, type InvokeContext, type ToolSpec } from '../../src/registry/index.ts';
import { RuntimeContract, ToolEnvironmentError, type SideEffect, type ToolResult } from '../../src/spec/index.ts';

// A handler's abort signal is made only when it is read, and simulated
// time's expiry only when the boundary waits on it (boundary.ts,
// tool-time.ts). These pin what must not change with that: the boundary's
// cancel and timeout win where they did, a handler that waits still sees
// its signal aborted when the boundary fires, and a call takes the
// microtask turns it took (concurrent replayed trials finish in that order).

interface State {
  log: string[];
}

const TIMEOUT_MS = 50;

const tool = (name: string, handler: ToolSpec<State>['handler']): ToolSpec<State> => ({
  name,
  description: name,
  input: z.strictObject({ n: z.number().optional() }),
  output: z.unknown(),
  runtime: RuntimeContract.parse({ timeout_ms: TIMEOUT_MS }),
  handler,
});

const tools: ToolSpec<State>[] = [
  tool('sync.echo', (input: { n?: number }, { state }) => {
    state.log.push('echo');
    return { n: input.n ?? 0 };
  }),
  // Sleeps past its timeout without awaiting, then returns: on simulated time the call has timed out.
  tool('sync.oversleeps', (_input, { state, sleep }) => {
    void sleep(TIMEOUT_MS * 2).catch(() => undefined);
    state.log.push('oversleeps');
    return { done: true };
  }),
  tool('sync.environment_fails', () => {
    throw new ToolEnvironmentError('the server went away');
  }),
  tool('async.waits', async (_input, { state, signal }) => {
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 4));
    state.log.push(`aborted=${signal.aborted}`);
    return { late: true };
  }),
];

function context(overrides: Partial<InvokeContext<State>> = {}): InvokeContext<State> & { state: State } {
  return {
    state: { log: [] },
    actor: { id: 'tester', permissions: [] },
    approvals: [],
    effects: [] as SideEffect[],
    receipts: new MemoryReceiptStore(),
    ...overrides,
  } as InvokeContext<State> & { state: State };
}

const errorCode = (result: ToolResult) => (result.ok ? 'ok' : result.error.code);

afterEach(() => {
  vi.useRealTimers();
});

describe('a handler that returns at once', () => {
  it('answers with its output', async () => {
    const registry = createRegistry(tools, []);
    const ctx = context();
    expect(await registry.invoke({ tool: 'sync.echo', arguments: { n: 3 } }, ctx)).toEqual({
      ok: true,
      output: { n: 3 },
      replayed: false,
    });
    expect(ctx.state.log).toEqual(['echo']);
  });

  it('answers on the same microtask turn as before, so concurrent trials keep their order', async () => {
    // 11: what invoke takes for such a handler (a replayed run's trials.jsonl
    // order, and the failures its reports show first, depend on it).
    for (const simulatedTime of [undefined, { elapsedMs: 0 }]) {
      const registry = createRegistry(tools, []);
      let turns = 0;
      let done = false;
      const spin = (async () => {
        while (!done) {
          turns += 1;
          await undefined;
        }
      })();
      await registry.invoke({ tool: 'sync.echo', arguments: {} }, context({ simulatedTime })).then(() => (done = true));
      await spin;
      expect(turns).toBe(11);
    }
  });

  it('is cancelled when the outer signal was already aborted (the handler still ran, as before)', async () => {
    const registry = createRegistry(tools, []);
    const outer = new AbortController();
    outer.abort();
    const ctx = context({ signal: outer.signal });
    const result = await registry.invoke({ tool: 'sync.echo', arguments: {} }, ctx);
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_timeout', details: { cancelled: true } } });
    expect(ctx.state.log).toEqual(['echo']);
  });

  it('is cancelled when the outer signal is aborted while its answer settles (by other code, between microtasks)', async () => {
    // Before the boundary's race settles (turn 3), an abort still wins; after it, the answer stands.
    const outcomes: string[] = [];
    for (const abortAtTurn of [1, 2, 6]) {
      const registry = createRegistry(tools, []);
      const outer = new AbortController();
      let turns = 0;
      let done = false;
      const spin = (async () => {
        while (!done) {
          turns += 1;
          if (turns === abortAtTurn) outer.abort();
          await undefined;
        }
      })();
      const result = await registry.invoke(
        { tool: 'sync.echo', arguments: {} },
        context({ signal: outer.signal, simulatedTime: { elapsedMs: 0 } }),
      );
      done = true;
      await spin;
      outcomes.push(result.ok ? 'ok' : `${result.error.code}${result.error.details.cancelled ? ' (cancelled)' : ''}`);
    }
    expect(outcomes).toEqual(['tool_timeout (cancelled)', 'tool_timeout (cancelled)', 'ok']);
  });

  it('cancels every call in flight on an aborted outer signal, in the order they started, with one listener on it', async () => {
    vi.useFakeTimers(); // the waiting calls end by the abort, never by their timer
    const registry = createRegistry(tools, []);
    const outer = new AbortController();
    // Calls that came and went leave no listener behind.
    for (let index = 0; index < 5; index += 1)
      expect(
        errorCode(await registry.invoke({ tool: 'sync.echo', arguments: {} }, context({ signal: outer.signal }))),
      ).toBe('ok');
    expect(getEventListeners(outer.signal, 'abort').length).toBeLessThanOrEqual(1);
    const settled: number[] = [];
    const waiting = [0, 1, 2].map((index) =>
      registry.invoke({ tool: 'async.waits', arguments: {} }, context({ signal: outer.signal })).then((result) => {
        settled.push(index);
        return result;
      }),
    );
    await vi.advanceTimersByTimeAsync(1);
    expect(getEventListeners(outer.signal, 'abort').length).toBe(1);
    outer.abort();
    const results = await Promise.all(waiting);
    expect(results.map((result) => (result.ok ? 'ok' : result.error.details.cancelled))).toEqual([true, true, true]);
    expect(settled).toEqual([0, 1, 2]);
    // A call after the abort is cancelled too.
    const late = await registry.invoke({ tool: 'sync.echo', arguments: {} }, context({ signal: outer.signal }));
    expect(late).toMatchObject({ ok: false, error: { code: 'tool_timeout', details: { cancelled: true } } });
  });

  it('times out on simulated time when it slept past its timeout, even though it returned', async () => {
    const registry = createRegistry(tools, []);
    const simulatedTime = { elapsedMs: 0 };
    const result = await registry.invoke({ tool: 'sync.oversleeps', arguments: {} }, context({ simulatedTime }));
    expect(errorCode(result)).toBe('tool_timeout');
    expect(simulatedTime.elapsedMs).toBe(TIMEOUT_MS);
  });

  it('passes an environment failure on to the trial', async () => {
    const registry = createRegistry(tools, []);
    await expect(registry.invoke({ tool: 'sync.environment_fails', arguments: {} }, context())).rejects.toThrow(
      ToolEnvironmentError,
    );
  });
});

describe('a handler that waits', () => {
  it('times out, and then finds its signal aborted', async () => {
    vi.useFakeTimers();
    const registry = createRegistry(tools, []);
    const ctx = context();
    const pending = registry.invoke({ tool: 'async.waits', arguments: {} }, ctx);
    await vi.runAllTimersAsync();
    expect(errorCode(await pending)).toBe('tool_timeout');
    expect(ctx.state.log).toEqual(['aborted=true']);
  });
});

describe('checkInput then invoke', () => {
  function counting() {
    let validations = 0;
    const input = z.strictObject({ n: z.number() }).refine(() => {
      validations += 1;
      return true;
    });
    const spec: ToolSpec<State> = {
      ...tools[0]!,
      name: 'counted.echo',
      input,
      handler: (value: { n: number }) => ({ n: value.n }),
    };
    return { registry: createRegistry([spec], []), validations: () => validations };
  }

  it('validates once when the caller says it has just checked these very arguments', async () => {
    const { registry, validations } = counting();
    const args = { n: 1 };
    expect(registry.checkInput('counted.echo', args)).toEqual({ ok: true });
    const result = await registry.invoke({ tool: 'counted.echo', arguments: args }, context({ inputChecked: true }));
    expect(result).toMatchObject({ ok: true, output: { n: 1 } });
    expect(validations()).toBe(1);
  });

  it('validates again without that promise, or for another arguments object', async () => {
    const { registry, validations } = counting();
    const args = { n: 1 };
    registry.checkInput('counted.echo', args);
    await registry.invoke({ tool: 'counted.echo', arguments: args }, context());
    expect(validations()).toBe(2);
    registry.checkInput('counted.echo', args);
    await registry.invoke({ tool: 'counted.echo', arguments: { n: 1 } }, context({ inputChecked: true }));
    expect(validations()).toBe(4);
  });
});
