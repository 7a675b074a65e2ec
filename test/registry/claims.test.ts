/**
 * The atomic claim behind idempotency: one (tool, key) runs once, even when
 * several store handles or processes share one receipt folder, and a claim a
 * crash left behind is never silently run again.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  approvalFingerprint,
  createRegistry,
  fail,
  MemoryReceiptStore,
  FileReceiptStore,
  type InvokeContext,
  type Receipt,
  type ReceiptStore,
  type ToolSpec,
} from '../../src/registry/index.ts';
import { RuntimeContract, toolError, type SideEffect, type ToolResult } from '../../src/spec/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The outside world the handlers write to, shared by every registry and store in a test. */
interface Ledger {
  entries: string[];
  runs: number;
  /** Calls to ledger.flaky that fail (without writing) before it starts succeeding. */
  flakyFailures: number;
  /** Lets a test hold ledger.late's handler open. */
  releaseLate?: () => void;
}

const append: ToolSpec<Ledger> = {
  name: 'ledger.append',
  description: 'Append an entry.',
  input: z.strictObject({ entry: z.string(), key: z.string() }),
  output: z.strictObject({ count: z.number() }),
  runtime: RuntimeContract.parse({ effect: 'write', idempotency_key: 'key', timeout_ms: 5_000 }),
  async handler(input: { entry: string; key: string }, { state, signal, sleep, recordEffect }) {
    state.runs += 1;
    // A timer, so every other concurrent call reaches its claim while this one holds the key.
    await sleep(20);
    signal.throwIfAborted();
    state.entries.push(input.entry);
    recordEffect({ action: 'ledger.append', effect: 'write', target: 'ledger', change_id: input.key });
    return { count: state.entries.length };
  },
};

/** Fails without writing until `flakyFailures` runs out, then writes. */
const flaky: ToolSpec<Ledger> = {
  name: 'ledger.flaky',
  description: 'Append, after some transient failures.',
  input: z.strictObject({ entry: z.string(), key: z.string() }),
  output: z.strictObject({ count: z.number() }),
  runtime: RuntimeContract.parse({ effect: 'write', idempotency_key: 'key' }),
  handler(input: { entry: string; key: string }, { state, recordEffect }) {
    state.runs += 1;
    if (state.flakyFailures > 0) {
      state.flakyFailures -= 1;
      return fail(toolError('rate_limited', 'try again'));
    }
    state.entries.push(input.entry);
    recordEffect({ action: 'ledger.flaky', effect: 'write', target: 'ledger', change_id: input.key });
    return { count: state.entries.length };
  },
};

/** Ignores its signal: writes whenever the test releases it, even after the timeout was reported. */
const late: ToolSpec<Ledger> = {
  name: 'ledger.late',
  description: 'Append, late.',
  input: z.strictObject({ entry: z.string(), key: z.string() }),
  output: z.strictObject({ count: z.number() }),
  runtime: RuntimeContract.parse({ effect: 'write', idempotency_key: 'key', timeout_ms: 20 }),
  async handler(input: { entry: string; key: string }, { state, recordEffect }) {
    state.runs += 1;
    await new Promise<void>((resolve) => (state.releaseLate = resolve));
    state.entries.push(input.entry);
    recordEffect({ action: 'ledger.late', effect: 'write', target: 'ledger', change_id: input.key });
    return { count: state.entries.length };
  },
};

const tools = [append, flaky, late];

function newLedger(): Ledger {
  return { entries: [], runs: 0, flakyFailures: 0 };
}

function contextFor(state: Ledger, receipts: ReceiptStore): InvokeContext<Ledger> {
  const effects: SideEffect[] = [];
  return { state, actor: { id: 'tester', permissions: [] }, approvals: [], effects, receipts };
}

const codeOf = (result: ToolResult) => (result.ok ? (result.replayed ? 'replayed' : 'fresh') : result.error.code);

let dir: string;
const open: FileReceiptStore[] = [];
function fileStore(file = join(dir, 'receipts')): FileReceiptStore {
  const store = new FileReceiptStore(file);
  open.push(store);
  return store;
}
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolmark-claims-'));
});
afterEach(async () => {
  for (const store of open.splice(0)) {
    try {
      store.close();
    } catch {
      // already closed by the test
    }
  }
  await rm(dir, { recursive: true, force: true });
});

const receiptOf = (key: string, fingerprint: string): Receipt => ({
  tool: 'ledger.append',
  key,
  fingerprint,
  result: { ok: true, output: { count: 1 }, replayed: false },
  created_at: '2025-01-01T00:00:00.000Z',
});

describe.each<[string, () => ReceiptStore]>([
  ['MemoryReceiptStore', () => new MemoryReceiptStore()],
  ['FileReceiptStore', () => fileStore()],
])('%s claims', (_name, make) => {
  it('a free key is claimed once; a second claimant sees it pending with the first fingerprint', async () => {
    const store = make();
    const first = await store.claim('ledger.append', 'k-1', 'fp-a');
    expect(first).toEqual({ kind: 'claimed', claim_id: expect.any(String) });
    expect(await store.claim('ledger.append', 'k-1', 'fp-b')).toEqual({
      kind: 'pending',
      fingerprint: 'fp-a',
      claimed_at: expect.any(String),
    });
    expect(await store.get('ledger.append', 'k-1')).toBeUndefined();
    // Another tool with the same key is a different claim.
    expect((await store.claim('ledger.other', 'k-1', 'fp-a')).kind).toBe('claimed');
  });

  it('completing turns the claim into the receipt every later claim gets', async () => {
    const store = make();
    const claim = await store.claim('ledger.append', 'k-1', 'fp-a');
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    await store.complete(claim.claim_id, receiptOf('k-1', 'fp-a'));
    expect(await store.claim('ledger.append', 'k-1', 'fp-a')).toEqual({
      kind: 'receipt',
      receipt: receiptOf('k-1', 'fp-a'),
    });
    expect(await store.get('ledger.append', 'k-1')).toEqual(receiptOf('k-1', 'fp-a'));
  });

  it("releasing frees the key; a stranger's claim id releases nothing", async () => {
    const store = make();
    const claim = await store.claim('ledger.append', 'k-1', 'fp-a');
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    await store.release('ledger.append', 'k-1', 'not-the-owner');
    expect((await store.claim('ledger.append', 'k-1', 'fp-a')).kind).toBe('pending');
    await store.release('ledger.append', 'k-1', claim.claim_id);
    expect((await store.claim('ledger.append', 'k-1', 'fp-b')).kind).toBe('claimed');
  });
});

describe('two FileReceiptStore handles on one file', () => {
  it('N concurrent calls with one key across both handles: one handler run, one write; the rest replay or are in progress', async () => {
    const state = newLedger();
    const handles = [fileStore(), fileStore()];
    const registries = handles.map(() => createRegistry(tools, []));
    const contexts = handles.map((store) => contextFor(state, store));
    const call = { tool: 'ledger.append', arguments: { entry: 'refund', key: 'rf-1' } };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => registries[index % 2]!.invoke(call, contexts[index % 2]!)),
    );
    const codes = results.map(codeOf);

    expect(state.runs).toBe(1);
    expect(state.entries).toEqual(['refund']);
    expect(contexts.flatMap((context) => context.effects)).toHaveLength(1);
    expect(codes.filter((code) => code === 'fresh')).toHaveLength(1);
    expect(codes.every((code) => code === 'fresh' || code === 'replayed' || code === 'idempotency_in_progress')).toBe(
      true,
    );
    // The other handle's calls found the key claimed, not free.
    expect(codes).toContain('idempotency_in_progress');
    const busy = results.find((result) => !result.ok)!;
    expect(busy).toMatchObject({
      ok: false,
      error: {
        code: 'idempotency_in_progress',
        category: 'conflict',
        retryable: true,
        details: { idempotency_key: 'rf-1' },
      },
    });

    // Once it finished, both handles replay it and no claim is left.
    for (const [index, registry] of registries.entries()) {
      expect(await registry.invoke(call, contexts[index]!)).toEqual({ ok: true, output: { count: 1 }, replayed: true });
    }
    expect(await handles[0]!.pendingClaims()).toEqual([]);
    expect(state.runs).toBe(1);
  });

  it('different arguments under a key another handle is running → idempotency_conflict', async () => {
    const state = newLedger();
    const [a, b] = [fileStore(), fileStore()];
    const registry = createRegistry(tools, []);
    const [first, second] = await Promise.all([
      registry.invoke({ tool: 'ledger.append', arguments: { entry: 'refund', key: 'rf-1' } }, contextFor(state, a)),
      registry.invoke({ tool: 'ledger.append', arguments: { entry: 'other', key: 'rf-1' } }, contextFor(state, b)),
    ]);
    // The file store claims through async I/O, so either call may get there first: one runs, the other is a conflict.
    const [winner, loser, entry] = codeOf(first!) === 'fresh' ? [first, second, 'refund'] : [second, first, 'other'];
    expect(codeOf(winner!)).toBe('fresh');
    expect(loser).toMatchObject({
      ok: false,
      error: { code: 'idempotency_conflict', category: 'conflict', retryable: false },
    });
    expect(state.entries).toEqual([entry]);
  });
});

describe('a claim left pending by a crash', () => {
  it('is outcome unknown: the next call is idempotency_in_progress (or a conflict), never a second write', async () => {
    const file = join(dir, 'receipts');
    const crashed = fileStore(file);
    // The crashed process claimed the key exactly as the registry would, then died before completing.
    const fingerprint = approvalFingerprint({ entry: 'refund', key: 'rf-9' }, 'key');
    expect((await crashed.claim('ledger.append', 'rf-9', fingerprint)).kind).toBe('claimed');
    crashed.close();

    const state = newLedger();
    const store = fileStore(file);
    const registry = createRegistry(tools, []);
    const context = contextFor(state, store);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(
        await registry.invoke({ tool: 'ledger.append', arguments: { entry: 'refund', key: 'rf-9' } }, context),
      ).toMatchObject({
        ok: false,
        error: {
          code: 'idempotency_in_progress',
          retryable: true,
          details: { idempotency_key: 'rf-9', claimed_at: expect.any(String) },
        },
      });
    }
    expect(
      await registry.invoke({ tool: 'ledger.append', arguments: { entry: 'changed', key: 'rf-9' } }, context),
    ).toMatchObject({
      ok: false,
      error: { code: 'idempotency_conflict' },
    });
    expect(state.runs).toBe(0);
    expect(context.effects).toEqual([]);

    // The operator sees the stuck claim, checks the outside world (nothing happened), and clears it.
    expect(await store.pendingClaims()).toEqual([
      { tool: 'ledger.append', key: 'rf-9', fingerprint, claim_id: expect.any(String), claimed_at: expect.any(String) },
    ]);
    expect(await store.clearClaim('ledger.append', 'rf-9')).toBe(true);
    expect(
      codeOf(await registry.invoke({ tool: 'ledger.append', arguments: { entry: 'refund', key: 'rf-9' } }, context)),
    ).toBe('fresh');
    expect(state.runs).toBe(1);
  });

  it('an operator who finds the write did happen records its receipt instead: the key replays', async () => {
    const file = join(dir, 'receipts');
    const fingerprint = approvalFingerprint({ entry: 'refund', key: 'rf-9' }, 'key');
    const store = fileStore(file);
    await store.claim('ledger.append', 'rf-9', fingerprint);
    await store.put(receiptOf('rf-9', fingerprint));
    const state = newLedger();
    const result = await createRegistry(tools, []).invoke(
      { tool: 'ledger.append', arguments: { entry: 'refund', key: 'rf-9' } },
      contextFor(state, store),
    );
    expect(result).toEqual({ ok: true, output: { count: 1 }, replayed: true });
    expect(state.runs).toBe(0);
  });
});

describe('settling a claim', () => {
  it.each<[string, () => [ReceiptStore, ReceiptStore]]>([
    [
      'one memory store',
      () => {
        const store = new MemoryReceiptStore();
        return [store, store];
      },
    ],
    ['two file-store handles', () => [fileStore(), fileStore()]],
  ])('a failure without a write releases the claim, so a retry runs (%s)', async (_name, make) => {
    const [first, second] = make();
    const state = { ...newLedger(), flakyFailures: 2 };
    const registry = createRegistry(tools, []);
    const call = { tool: 'ledger.flaky', arguments: { entry: 'refund', key: 'rf-2' } };
    expect(codeOf(await registry.invoke(call, contextFor(state, first)))).toBe('rate_limited');
    expect(codeOf(await registry.invoke(call, contextFor(state, second)))).toBe('rate_limited');
    expect(await registry.invoke(call, contextFor(state, first))).toEqual({
      ok: true,
      output: { count: 1 },
      replayed: false,
    });
    expect(await registry.invoke(call, contextFor(state, second))).toEqual({
      ok: true,
      output: { count: 1 },
      replayed: true,
    });
    expect(state.runs).toBe(3);
    expect(state.entries).toEqual(['refund']);
  });

  it('a write that lands after the reported timeout still becomes a receipt; until then a retry is in progress', async () => {
    const state = newLedger();
    const store = new MemoryReceiptStore();
    const registry = createRegistry(tools, []);
    const context = contextFor(state, store);
    const call = { tool: 'ledger.late', arguments: { entry: 'late', key: 'rf-3' } };
    expect(codeOf(await registry.invoke(call, context))).toBe('tool_timeout');
    // The handler is still running: a retry must not start a second one.
    expect(codeOf(await registry.invoke(call, context))).toBe('idempotency_in_progress');
    expect(store.pending).toBe(1);

    state.releaseLate!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.entries).toEqual(['late']);
    expect(store.pending).toBe(0);
    expect(await registry.invoke(call, context)).toMatchObject({
      ok: false,
      error: { code: 'tool_timeout', details: { replayed: true } },
    });
    expect(state.runs).toBe(1);
  });
});

describe('several processes on one receipt folder', () => {
  it('hammering one key from 3 processes × 4 concurrent calls records exactly one write', async () => {
    const file = join(dir, 'receipts');
    const ledger = join(dir, 'ledger.txt');
    // Create the folder before the children race to open it.
    fileStore(file).close();

    const children = Array.from({ length: 3 }, () =>
      spawn(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'test/registry/fixtures/hammer-key.ts'), file, ledger, '4'],
        { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
      ),
    );
    const outputs = children.map(
      (child) =>
        new Promise<{ stdout: string; stderr: string; code: number | null }>((done) => {
          let stdout = '';
          let stderr = '';
          child.stdout!.on('data', (chunk) => (stdout += chunk));
          child.stderr!.on('data', (chunk) => (stderr += chunk));
          const guard = setTimeout(() => child.kill('SIGKILL'), 240_000);
          child.on('close', (code) => {
            clearTimeout(guard);
            done({ stdout, stderr, code });
          });
        }),
    );
    // Release them together once every child has its store open.
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((ready) => {
            const onData = (chunk: Buffer) => {
              if (chunk.toString().includes('ready')) {
                child.stdout!.off('data', onData);
                ready();
              }
            };
            child.stdout!.on('data', onData);
          }),
      ),
    );
    for (const child of children) child.stdin!.write('go\n');
    const finished = await Promise.all(outputs);

    const results: ToolResult[] = [];
    for (const { stdout, stderr, code } of finished) {
      expect(code, stderr).toBe(0);
      results.push(...(JSON.parse(stdout.slice(stdout.indexOf('{'))) as { results: ToolResult[] }).results);
    }
    const codes = results.map(codeOf);
    expect(codes).toHaveLength(12);
    expect(codes.filter((code) => code === 'fresh')).toHaveLength(1);
    expect(codes.every((code) => code === 'fresh' || code === 'replayed' || code === 'idempotency_in_progress')).toBe(
      true,
    );
    expect(existsSync(ledger)).toBe(true);
    expect(readFileSync(ledger, 'utf8').trim().split('\n')).toHaveLength(1);

    // The winner completed its claim: the key is a receipt now, and nothing is left pending.
    const store = fileStore(file);
    expect(await store.pendingClaims()).toEqual([]);
    expect(await store.get('ledger.append', 'rf-shared')).toMatchObject({ result: { ok: true } });
  }, 300_000); // three tsx processes start; seconds each on a loaded machine
});
