import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRegistry, MemoryReceiptStore, type InvokeContext, type ToolSpec } from '../../src/registry/index.ts';
import { RuntimeContract, type SideEffect, type ToolResult } from '../../src/spec/index.ts';

// Simulated tool time (src/registry/tool-time.ts): a handler's sleeps advance
// a per-call clock instead of waiting, and the call times out exactly where
// real timers would have made it. Checked against real time driven by
// vitest's fake timers, so no test waits and none asserts a wall-clock time.

interface State {
  writes: string[];
}

const TIMEOUT_MS = 500;

/** Sleeps each of `sleeps` in turn, writing after each one, so a timeout shows in how far it got. */
const sleeper: ToolSpec<State> = {
  name: 'slow.steps',
  description: 'Sleeps, then writes, step by step.',
  input: z.strictObject({ sleeps: z.array(z.number().int().min(0)) }),
  output: z.strictObject({ steps: z.number() }),
  runtime: RuntimeContract.parse({ effect: 'write', timeout_ms: TIMEOUT_MS }),
  async handler(input: { sleeps: number[] }, { state, sleep, signal, recordEffect }) {
    for (const [index, ms] of input.sleeps.entries()) {
      await sleep(ms);
      signal.throwIfAborted();
      state.writes.push(`step ${index}`);
      recordEffect({ action: 'slow.steps', effect: 'write', target: `step ${index}` });
    }
    return { steps: input.sleeps.length };
  },
};

const registry = createRegistry([sleeper], []);

interface Observed {
  result: ToolResult;
  writes: string[];
  effects: SideEffect[];
  elapsedMs: number | null;
}

async function call(sleeps: number[], mode: 'real' | 'simulated'): Promise<Observed> {
  const state: State = { writes: [] };
  const effects: SideEffect[] = [];
  const simulatedTime = mode === 'simulated' ? { elapsedMs: 0 } : undefined;
  const context: InvokeContext<State> = {
    state,
    actor: { id: 'tester', permissions: [] },
    approvals: [],
    effects,
    receipts: new MemoryReceiptStore(),
    simulatedTime,
  };
  const pending = registry.invoke({ tool: 'slow.steps', arguments: { sleeps }, call_id: 'c1' }, context);
  // Real time: let the fake clock run every timer out. Simulated time needs none.
  if (mode === 'real') await vi.runAllTimersAsync();
  const result = await pending;
  return { result, writes: state.writes, effects, elapsedMs: simulatedTime?.elapsedMs ?? null };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('simulated tool time', () => {
  it('completes a call without any timer running, charging the sleeps to the call', async () => {
    vi.useFakeTimers(); // no timer ever fires: a real sleep would never resolve
    const observed = await call([50, 150, 200], 'simulated');
    expect(observed.result).toMatchObject({ ok: true, output: { steps: 3 } });
    expect(observed.elapsedMs).toBe(400);
    expect(observed.writes).toEqual(['step 0', 'step 1', 'step 2']);
  });

  it('times out where the timeout falls: the sleep that crosses it never returns, nothing after it is written', async () => {
    vi.useFakeTimers();
    const observed = await call([300, 300], 'simulated');
    expect(observed.result).toMatchObject({
      ok: false,
      error: { code: 'tool_timeout', details: { timeout_ms: TIMEOUT_MS } },
    });
    expect(observed.elapsedMs).toBe(TIMEOUT_MS);
    expect(observed.writes).toEqual(['step 0']);
    expect(observed.effects.map((effect) => effect.target)).toEqual(['step 0']);
  });

  it('decides a sleep that ends exactly at the timeout as real timers do: the timer armed first wins', async () => {
    vi.useFakeTimers();
    // The first sleep is armed before the call's timeout: it completes.
    const first = { simulated: await call([TIMEOUT_MS], 'simulated'), real: await call([TIMEOUT_MS], 'real') };
    expect(first.simulated.result).toMatchObject({ ok: true });
    expect(first.real.result).toEqual(first.simulated.result);
    // A later sleep is armed after it: the timeout fires first.
    const later = { simulated: await call([389, 111], 'simulated'), real: await call([389, 111], 'real') };
    expect(later.simulated.result).toMatchObject({ ok: false, error: { code: 'tool_timeout' } });
    expect(later.real.result).toEqual(later.simulated.result);
    expect(later.simulated.writes).toEqual(later.real.writes);
  });

  it('gives the same outcome, writes and effects as real time for any sequence of sleeps', async () => {
    vi.useFakeTimers();
    await fc.assert(
      // Multiples of 50 make sums that land exactly on the timeout common.
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 400 }),
            fc.integer({ min: 0, max: 8 }).map((step) => step * 50),
          ),
          { maxLength: 5 },
        ),
        async (sleeps) => {
          const simulated = await call(sleeps, 'simulated');
          const real = await call(sleeps, 'real');
          expect(simulated.result).toEqual(real.result);
          expect(simulated.writes).toEqual(real.writes);
          expect(simulated.effects).toEqual(real.effects);
          const total = sleeps.reduce((sum, ms) => sum + ms, 0);
          expect(simulated.elapsedMs).toBe(Math.min(total, TIMEOUT_MS));
        },
      ),
      { numRuns: 200 },
    );
  });
});
