import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  approvalFingerprint,
  createRegistry,
  fail,
  MemoryReceiptStore,
  type InvokeContext,
  type ToolSpec,
} from '../../src/registry/index.ts';
import { RuntimeContract, ToolResult, toolError, type Approval, type SideEffect } from '../../src/spec/index.ts';

/** A tiny backend: a list of notes, and a count of handler runs per tool. */
interface NotesState {
  notes: string[];
  runs: Record<string, number>;
}

function counted(state: NotesState, tool: string) {
  state.runs[tool] = (state.runs[tool] ?? 0) + 1;
}

const writeNote: ToolSpec<NotesState> = {
  name: 'notes.write',
  description: 'Write a note.',
  input: z.strictObject({ note: z.string().min(1), key: z.string().min(3) }),
  output: z.strictObject({ written: z.string(), count: z.number() }),
  runtime: RuntimeContract.parse({
    permission: 'notes:write',
    effect: 'write',
    approval: 'required',
    idempotency_key: 'key',
  }),
  handler(input: { note: string; key: string }, { state, signal, recordEffect }) {
    counted(state, 'notes.write');
    signal.throwIfAborted();
    state.notes.push(input.note);
    recordEffect({ action: 'notes.write', effect: 'write', target: 'notes', change_id: input.key });
    return { written: input.note, count: state.notes.length };
  },
};

const readNotes: ToolSpec<NotesState> = {
  name: 'notes.read',
  description: 'Read the notes.',
  input: z.strictObject({ index: z.number().int().min(0).optional() }),
  output: z.strictObject({ notes: z.array(z.string()) }),
  runtime: RuntimeContract.parse({ permission: 'notes:read' }),
  handler(input: { index?: number }, { state }) {
    counted(state, 'notes.read');
    if (input.index !== undefined && input.index >= state.notes.length)
      return fail(toolError('not_found', `no note ${input.index}`, { index: input.index }));
    return { notes: input.index === undefined ? [...state.notes] : [state.notes[input.index]!] };
  },
};

const throwing: ToolSpec<NotesState> = {
  name: 'notes.explode',
  description: 'Always throws.',
  input: z.strictObject({}),
  output: z.unknown(),
  runtime: RuntimeContract.parse({}),
  handler(_input, { state }) {
    counted(state, 'notes.explode');
    throw new TypeError('boom');
  },
};

const badOutput: ToolSpec<NotesState> = {
  name: 'notes.bad_output',
  description: 'Returns the wrong shape.',
  input: z.strictObject({}),
  output: z.strictObject({ notes: z.array(z.string()) }),
  runtime: RuntimeContract.parse({}),
  handler(_input, { state }) {
    counted(state, 'notes.bad_output');
    return { notes: 'not a list' };
  },
};

/** Writes, then returns output that breaks its schema: the write happened anyway. */
const writeThenBadOutput: ToolSpec<NotesState> = {
  name: 'notes.write_bad_output',
  description: 'Writes then returns the wrong shape.',
  input: z.strictObject({ note: z.string(), key: z.string() }),
  output: z.strictObject({ ok: z.literal(true) }),
  runtime: RuntimeContract.parse({ effect: 'write', idempotency_key: 'key' }),
  handler(input: { note: string; key: string }, { state, recordEffect }) {
    counted(state, 'notes.write_bad_output');
    state.notes.push(input.note);
    recordEffect({ action: 'notes.write_bad_output', effect: 'write', target: 'notes', change_id: input.key });
    return { ok: 'yes' };
  },
};

/** Sleeps, then writes only if its signal is still live. */
const slowWrite: ToolSpec<NotesState> = {
  name: 'notes.slow_write',
  description: 'Slow write.',
  input: z.strictObject({ note: z.string(), delay: z.number() }),
  output: z.strictObject({ written: z.string() }),
  runtime: RuntimeContract.parse({ effect: 'write', timeout_ms: 40, retry: { transient: true, max_attempts: 2 } }),
  async handler(input: { note: string; delay: number }, { state, signal, recordEffect }) {
    counted(state, 'notes.slow_write');
    // A plain timer, not context.sleep: the handler only learns of the timeout from its signal.
    await new Promise((resolve) => setTimeout(resolve, input.delay));
    signal.throwIfAborted();
    state.notes.push(input.note);
    recordEffect({ action: 'notes.slow_write', effect: 'write', target: 'notes' });
    return { written: input.note };
  },
};

const slowRead: ToolSpec<NotesState> = {
  name: 'notes.slow_read',
  description: 'Slow read, not transient.',
  input: z.strictObject({ delay: z.number() }),
  output: z.strictObject({ notes: z.array(z.string()) }),
  runtime: RuntimeContract.parse({ timeout_ms: 30 }),
  async handler(input: { delay: number }, { state, sleep }) {
    counted(state, 'notes.slow_read');
    await sleep(input.delay);
    return { notes: [...state.notes] };
  },
};

const tools = [writeNote, readNotes, throwing, badOutput, writeThenBadOutput, slowWrite, slowRead];

function approve(note: string): Approval {
  return { tool: 'notes.write', fingerprint: approvalFingerprint({ note }, 'key') };
}

function setup(overrides: Partial<InvokeContext<NotesState>> = {}) {
  const state: NotesState = { notes: [], runs: {} };
  const effects: SideEffect[] = [];
  const context: InvokeContext<NotesState> = {
    state,
    actor: { id: 'tester', permissions: ['notes:read', 'notes:write'] },
    approvals: [approve('hello')],
    effects,
    receipts: new MemoryReceiptStore(),
    ...overrides,
  };
  return { registry: createRegistry(tools, []), state, effects, context };
}

function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('registry pipeline: each step stops the call before the handler', () => {
  it('1. unknown tool → tool_not_found listing the available tools', async () => {
    const { registry, context, state } = setup();
    const error = errorOf(
      await registry.invoke({ tool: 'notes.wrte', arguments: { note: 'hello', key: 'k-1' } }, context),
    );
    expect(error.code).toBe('tool_not_found');
    expect(error.category).toBe('routing');
    expect(error.details.available_tools).toEqual(tools.map((tool) => tool.name));
    expect(state.runs).toEqual({});
  });

  it('2. bad arguments → invalid_arguments with a violation per field', async () => {
    const { registry, context, state, effects } = setup();
    const error = errorOf(
      await registry.invoke({ tool: 'notes.write', arguments: { note: '', key: 'k', extra: true } }, context),
    );
    expect(error.code).toBe('invalid_arguments');
    expect(error.category).toBe('validation');
    const paths = (error.details.violations as { path: string }[]).map((violation) => violation.path).sort();
    expect(paths).toEqual(['(root)', 'key', 'note']);
    expect(state.runs).toEqual({});
    expect(effects).toEqual([]);
  });

  it('2. arguments that are not an object at all are invalid_arguments, not a crash', async () => {
    const { registry, context, state } = setup();
    for (const args of [undefined, null, 'note', 42, [1, 2]]) {
      expect(errorOf(await registry.invoke({ tool: 'notes.write', arguments: args }, context)).code).toBe(
        'invalid_arguments',
      );
    }
    expect(state.runs).toEqual({});
  });

  it('3. missing permission → permission_denied naming the permission', async () => {
    const { registry, context, state, effects } = setup({ actor: { id: 'reader', permissions: ['notes:read'] } });
    const error = errorOf(
      await registry.invoke({ tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } }, context),
    );
    expect(error).toMatchObject({
      code: 'permission_denied',
      category: 'policy',
      retryable: false,
      details: { required_permission: 'notes:write' },
    });
    expect(state.runs).toEqual({});
    expect(effects).toEqual([]);
  });

  it('4. no approval for these arguments → approval_required', async () => {
    const { registry, context, state, effects } = setup({ approvals: [] });
    const error = errorOf(
      await registry.invoke({ tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } }, context),
    );
    expect(error).toMatchObject({
      code: 'approval_required',
      category: 'policy',
      details: { fingerprint: approvalFingerprint({ note: 'hello' }, 'key') },
    });
    expect(state.runs).toEqual({});
    expect(effects).toEqual([]);
  });

  it('4. approval is bound to the arguments: approving note A does not approve note B', async () => {
    const { registry, context, state, effects } = setup({ approvals: [approve('note A')] });
    expect(
      errorOf(await registry.invoke({ tool: 'notes.write', arguments: { note: 'note B', key: 'k-1' } }, context)).code,
    ).toBe('approval_required');
    expect(state.runs).toEqual({});
    // …nor is it an approval of another tool with the same arguments.
    const otherTool = setup({
      approvals: [{ tool: 'notes.other', fingerprint: approvalFingerprint({ note: 'note A' }, 'key') }],
    });
    expect(
      errorOf(
        await otherTool.registry.invoke(
          { tool: 'notes.write', arguments: { note: 'note A', key: 'k-1' } },
          otherTool.context,
        ),
      ).code,
    ).toBe('approval_required');
    // The approved note goes through, whatever idempotency key it carries.
    const result = await registry.invoke(
      { tool: 'notes.write', arguments: { note: 'note A', key: 'any-key' } },
      context,
    );
    expect(result).toEqual({ ok: true, output: { written: 'note A', count: 1 }, replayed: false });
    expect(effects).toEqual([{ action: 'notes.write', effect: 'write', target: 'notes', change_id: 'any-key' }]);
  });

  it('5. a slow handler → tool_timeout, its signal aborted, and its write never lands', async () => {
    const { registry, context, state, effects } = setup();
    const error = errorOf(
      await registry.invoke({ tool: 'notes.slow_write', arguments: { note: 'late', delay: 120 } }, context),
    );
    expect(error).toMatchObject({
      code: 'tool_timeout',
      category: 'dependency',
      retryable: true,
      details: { timeout_ms: 40 },
    });
    // Wait past the handler's own delay: it wakes, sees the aborted signal, and does not write.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.runs['notes.slow_write']).toBe(1);
    expect(state.notes).toEqual([]);
    expect(effects).toEqual([]);
  });

  it('5. a timeout is retryable only for a transient tool', async () => {
    const { registry, context } = setup();
    const error = errorOf(await registry.invoke({ tool: 'notes.slow_read', arguments: { delay: 500 } }, context));
    expect(error).toMatchObject({ code: 'tool_timeout', retryable: false });
  });

  it('5. an outer signal cancels the call as a timeout', async () => {
    const controller = new AbortController();
    const { registry, context } = setup({ signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const error = errorOf(
      await registry.invoke(
        { tool: 'notes.slow_read', arguments: { delay: 10_000 } },
        { ...context, signal: controller.signal },
      ),
    );
    expect(error).toMatchObject({ code: 'tool_timeout', details: { cancelled: true } });
  });

  it('6. same key and same arguments → the receipt is replayed, no second write', async () => {
    const { registry, context, state, effects } = setup();
    const call = { tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } };
    const first = await registry.invoke(call, context);
    const second = await registry.invoke({ tool: 'notes.write', arguments: { key: 'k-1', note: 'hello' } }, context);
    expect(first).toEqual({ ok: true, output: { written: 'hello', count: 1 }, replayed: false });
    expect(second).toEqual({ ok: true, output: { written: 'hello', count: 1 }, replayed: true });
    expect(state.runs['notes.write']).toBe(1);
    expect(effects).toHaveLength(1);
  });

  it('6. same key and different arguments → idempotency_conflict, no handler run', async () => {
    const { registry, context, state, effects } = setup({ approvals: [approve('hello'), approve('goodbye')] });
    await registry.invoke({ tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } }, context);
    const error = errorOf(
      await registry.invoke({ tool: 'notes.write', arguments: { note: 'goodbye', key: 'k-1' } }, context),
    );
    expect(error).toMatchObject({
      code: 'idempotency_conflict',
      category: 'conflict',
      retryable: false,
      details: { idempotency_key: 'k-1' },
    });
    expect(state.runs['notes.write']).toBe(1);
    expect(state.notes).toEqual(['hello']);
    expect(effects).toHaveLength(1);
  });

  it('6. concurrent calls with one key write once', async () => {
    const { registry, context, state, effects } = setup();
    const call = { tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } };
    const results = await Promise.all([
      registry.invoke(call, context),
      registry.invoke(call, context),
      registry.invoke(call, context),
    ]);
    expect(results.filter((result) => result.ok && result.replayed)).toHaveLength(2);
    expect(state.notes).toEqual(['hello']);
    expect(effects).toHaveLength(1);
  });

  it('7. a throwing handler is contained as handler_exception', async () => {
    const { registry, context, state } = setup();
    const error = errorOf(await registry.invoke({ tool: 'notes.explode', arguments: {} }, context));
    expect(error).toMatchObject({
      code: 'handler_exception',
      category: 'internal',
      retryable: false,
      details: { exception: 'TypeError', reason: 'boom' },
    });
    expect(state.runs['notes.explode']).toBe(1);
  });

  it('7. a domain error returned with fail() reaches the caller as is', async () => {
    const { registry, context } = setup();
    const error = errorOf(await registry.invoke({ tool: 'notes.read', arguments: { index: 3 } }, context));
    expect(error).toEqual({
      code: 'not_found',
      category: 'not_found',
      message: 'no note 3',
      retryable: false,
      details: { index: 3 },
    });
  });

  it('8. output that breaks the declared schema → invalid_tool_output', async () => {
    const { registry, context } = setup();
    const error = errorOf(await registry.invoke({ tool: 'notes.bad_output', arguments: {} }, context));
    expect(error.code).toBe('invalid_tool_output');
    expect(error.details.violations).toEqual([{ path: 'notes', message: expect.any(String) }]);
  });

  it('9. a write whose output failed validation still leaves a receipt: the retry does not write again', async () => {
    const { registry, context, state, effects } = setup();
    const call = { tool: 'notes.write_bad_output', arguments: { note: 'x', key: 'k-9' } };
    expect(errorOf(await registry.invoke(call, context)).code).toBe('invalid_tool_output');
    const retry = errorOf(await registry.invoke(call, context));
    expect(retry).toMatchObject({ code: 'invalid_tool_output', details: { replayed: true } });
    expect(state.runs['notes.write_bad_output']).toBe(1);
    expect(effects).toHaveLength(1);
  });

  it('9. a failed call without a write leaves no receipt, so it can be retried', async () => {
    const { registry, context, state } = setup();
    const store = context.receipts as MemoryReceiptStore;
    await registry.invoke({ tool: 'notes.read', arguments: { index: 0 } }, context);
    expect(store.size).toBe(0);
    await registry.invoke({ tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } }, context);
    expect(store.size).toBe(1);
    expect(state.notes).toEqual(['hello']);
  });
});

describe('registry pipeline: order', () => {
  it('invalid arguments are reported before a missing permission', async () => {
    const { registry, context } = setup({ actor: { id: 'nobody', permissions: [] }, approvals: [] });
    expect(errorOf(await registry.invoke({ tool: 'notes.write', arguments: { note: 42 } }, context)).code).toBe(
      'invalid_arguments',
    );
  });

  it('a missing permission is reported before a missing approval', async () => {
    const { registry, context } = setup({ actor: { id: 'reader', permissions: ['notes:read'] }, approvals: [] });
    expect(
      errorOf(await registry.invoke({ tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } }, context)).code,
    ).toBe('permission_denied');
  });

  it('a replay still needs permission and approval', async () => {
    const { registry, context, state } = setup();
    const call = { tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } };
    expect((await registry.invoke(call, context)).ok).toBe(true);
    const withoutPermission = { ...context, actor: { id: 'reader', permissions: ['notes:read'] } };
    expect(errorOf(await registry.invoke(call, withoutPermission)).code).toBe('permission_denied');
    const withoutApproval = { ...context, approvals: [] };
    expect(errorOf(await registry.invoke(call, withoutApproval)).code).toBe('approval_required');
    expect(state.runs['notes.write']).toBe(1);
  });

  it('a conflicting key is checked after approval: an unapproved conflicting call says approval_required', async () => {
    const { registry, context } = setup();
    await registry.invoke({ tool: 'notes.write', arguments: { note: 'hello', key: 'k-1' } }, context);
    expect(
      errorOf(await registry.invoke({ tool: 'notes.write', arguments: { note: 'other', key: 'k-1' } }, context)).code,
    ).toBe('approval_required');
  });
});

describe('registry surface', () => {
  it('lists, finds and describes its tools', () => {
    const registry = createRegistry(tools, []);
    expect(registry.names()).toEqual(tools.map((tool) => tool.name));
    expect(registry.has('notes.write')).toBe(true);
    expect(registry.get('notes.nope')).toBeUndefined();
    expect(registry.inputSchema('notes.write')).toEqual({
      type: 'object',
      properties: { note: { type: 'string', minLength: 1 }, key: { type: 'string', minLength: 3 } },
      required: ['note', 'key'],
      additionalProperties: false,
    });
  });

  it('hands out schema copies: changing one does not change the next', () => {
    const registry = createRegistry(tools, []);
    registry.inputSchema('notes.write').type = 'array';
    expect(registry.inputSchema('notes.write').type).toBe('object');
  });

  it('checks input without running anything', () => {
    const { registry, state } = setup();
    expect(registry.checkInput('notes.write', { note: 'x', key: 'abc' })).toEqual({ ok: true });
    expect(registry.checkInput('notes.write', { note: 'x' })).toEqual({
      ok: false,
      violations: [{ path: 'key', message: expect.any(String) }],
    });
    expect(registry.checkInput('notes.nope', {})).toMatchObject({ ok: false });
    expect(state.runs).toEqual({});
  });

  it('refuses two tools with one name', () => {
    expect(() => createRegistry([writeNote, writeNote], [])).toThrow(/duplicate/);
  });

  it('fingerprints ignore key order and the idempotency key, and nothing else', () => {
    expect(approvalFingerprint({ a: 1, b: 'x', key: 'k1' }, 'key')).toBe(
      approvalFingerprint({ b: 'x', a: 1, key: 'k2' }, 'key'),
    );
    expect(approvalFingerprint({ a: 1, key: 'k1' }, 'key')).not.toBe(approvalFingerprint({ a: 2, key: 'k1' }, 'key'));
    expect(approvalFingerprint({ a: 1, key: 'k1' }, null)).not.toBe(approvalFingerprint({ a: 1, key: 'k2' }, null));
  });
});
