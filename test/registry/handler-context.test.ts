import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry, MemoryReceiptStore, type InvokeContext, type ToolSpec } from '../../src/registry/index.ts';
import type { HandlerContext } from '../../src/registry/tool-spec.ts';
import { RuntimeContract, type SideEffect } from '../../src/spec/index.ts';

// The context a handler gets is built without an object literal's getter
// (src/registry/handler-context.ts); what a handler can do with it is the same.

interface State {
  seen: HandlerContext<State>[];
}

const TIMEOUT_MS = 40;

function tool(name: string, handler: ToolSpec<State>['handler']): ToolSpec<State> {
  return {
    name,
    description: name,
    input: z.strictObject({}),
    output: z.unknown(),
    runtime: RuntimeContract.parse({ timeout_ms: TIMEOUT_MS }),
    handler,
  };
}

function invokeContext(state: State): InvokeContext<State> {
  return {
    state,
    actor: { id: 'tester', permissions: [] },
    approvals: [],
    effects: [] as SideEffect[],
    receipts: new MemoryReceiptStore(),
  } as InvokeContext<State>;
}

describe('a handler context', () => {
  it('has state, actor, signal, recordEffect and sleep as its own keys, in that order; spread and detached calls work', async () => {
    const registry = createRegistry(
      [
        tool('desk.write', (_input, context) => {
          context.state.seen.push(context);
          const { recordEffect, signal } = context;
          const copy = { ...context };
          recordEffect({ action: 'desk.write', effect: 'write', target: 'T-1' });
          return { keys: Object.keys(context), aborted: signal.aborted, copied: copy.signal === signal };
        }),
      ],
      [],
    );
    const state: State = { seen: [] };
    const call = invokeContext(state);
    const result = await registry.invoke({ tool: 'desk.write', arguments: {} }, call);
    expect(result).toEqual({
      ok: true,
      output: { keys: ['state', 'actor', 'signal', 'recordEffect', 'sleep'], aborted: false, copied: true },
      replayed: false,
    });
    expect(call.effects).toEqual([{ action: 'desk.write', effect: 'write', target: 'T-1', change_id: null }]);
  });

  it('gives each call its own signal, aborted when that call times out, and a detached sleep that honours it', async () => {
    const registry = createRegistry(
      [
        tool('desk.quick', (_input, { state, signal }) => {
          state.seen.push({ signal } as HandlerContext<State>);
          return {};
        }),
        tool('desk.slow', async (_input, context) => {
          context.state.seen.push(context);
          const { sleep } = context;
          await sleep(TIMEOUT_MS * 5).catch(() => undefined);
          return {};
        }),
      ],
      [],
    );
    const state: State = { seen: [] };
    await registry.invoke({ tool: 'desk.quick', arguments: {} }, invokeContext(state));
    const slow = await registry.invoke({ tool: 'desk.slow', arguments: {} }, invokeContext(state));
    expect(slow.ok ? 'ok' : slow.error.code).toBe('tool_timeout');
    const [quick, waited] = state.seen;
    expect(quick!.signal).not.toBe(waited!.signal);
    expect(quick!.signal.aborted).toBe(false);
    expect(waited!.signal.aborted).toBe(true);
  });
});
