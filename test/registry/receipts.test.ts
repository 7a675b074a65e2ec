import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import tickets from '../../suites/tickets/domain.ts';
import {
  approvalFingerprint,
  createDomainRegistry,
  MemoryReceiptStore,
  FileReceiptStore,
  type Receipt,
  type ReceiptStore,
} from '../../src/registry/index.ts';
import type { SideEffect } from '../../src/spec/index.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

const receipt = (key: string, note: string): Receipt => ({
  tool: 'ticket.record_followup',
  key,
  fingerprint: approvalFingerprint({ ticket_id: 'T-101', note }, 'action_id'),
  result: { ok: true, output: { note }, replayed: false },
  created_at: '2025-01-01T00:00:00.000Z',
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolmark-receipts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each<[string, () => ReceiptStore]>([
  ['MemoryReceiptStore', () => new MemoryReceiptStore()],
  ['FileReceiptStore', () => new FileReceiptStore(join(dir, 'receipts'))],
])('%s', (_name, open) => {
  it('stores and returns receipts by tool and key', async () => {
    const store = open();
    expect(await store.get('ticket.record_followup', 'act-1')).toBeUndefined();
    await store.put(receipt('act-1', 'first'));
    expect(await store.get('ticket.record_followup', 'act-1')).toEqual(receipt('act-1', 'first'));
    expect(await store.get('ticket.other', 'act-1')).toBeUndefined();
  });

  it('keeps the first receipt for a key', async () => {
    const store = open();
    await store.put(receipt('act-1', 'first'));
    await store.put(receipt('act-1', 'second'));
    expect((await store.get('ticket.record_followup', 'act-1'))?.fingerprint).toBe(
      receipt('act-1', 'first').fingerprint,
    );
  });
});

/** One approved write of the tickets domain against the given store. */
async function recordOnce(store: ReceiptStore) {
  const registry = createDomainRegistry(tickets);
  const effects: SideEffect[] = [];
  const args = { ticket_id: 'T-101', note: 'Called back.', action_id: 'act-durable' };
  const result = await registry.invoke(
    { tool: 'ticket.record_followup', arguments: args },
    {
      state: tickets.createState(),
      actor: { id: 'agent', permissions: ['ticket:read', 'ticket:write'] },
      approvals: [{ tool: 'ticket.record_followup', fingerprint: approvalFingerprint(args, 'action_id') }],
      effects,
      receipts: store,
    },
  );
  return { result, effects };
}

describe('durable receipts', () => {
  it('survive closing and reopening the store: the retry after a restart is a replay, not a second write', async () => {
    const path = join(dir, 'receipts');
    const before = new FileReceiptStore(path);
    const first = await recordOnce(before);
    before.close();
    expect(first.result).toMatchObject({ ok: true, replayed: false });
    expect(first.effects).toHaveLength(1);

    const after = new FileReceiptStore(path);
    const second = await recordOnce(after);
    after.close();
    expect(second.result).toEqual({ ok: true, output: (first.result as { output: unknown }).output, replayed: true });
    expect(second.effects).toEqual([]);
  });

  it('survive a process restart: a receipt written by one process stops the write in another', async () => {
    const path = join(dir, 'receipts');
    const script = join(dir, 'write.mts');
    await writeFile(
      script,
      `import tickets from ${JSON.stringify(join(ROOT, 'suites/tickets/domain.ts'))};
import { approvalFingerprint, createDomainRegistry, FileReceiptStore } from ${JSON.stringify(join(ROOT, 'src/registry/index.ts'))};
const store = new FileReceiptStore(process.argv[2]);
const args = { ticket_id: 'T-101', note: 'Called back.', action_id: 'act-durable' };
const effects = [];
const result = await createDomainRegistry(tickets).invoke({ tool: 'ticket.record_followup', arguments: args }, {
  state: tickets.createState(), actor: { id: 'agent', permissions: ['ticket:read', 'ticket:write'] },
  approvals: [{ tool: 'ticket.record_followup', fingerprint: approvalFingerprint(args, 'action_id') }], effects, receipts: store });
store.close();
process.stdout.write(JSON.stringify({ result, effects: effects.length }));
`,
    );
    const child = async () =>
      JSON.parse((await run(process.execPath, ['--import', 'tsx', script, path], { cwd: ROOT })).stdout);
    const first = await child();
    const second = await child();
    expect(first).toMatchObject({ result: { ok: true, replayed: false }, effects: 1 });
    expect(second).toMatchObject({ result: { ok: true, replayed: true }, effects: 0 });

    // And this process sees the same receipt.
    const store = new FileReceiptStore(path);
    const here = await recordOnce(store);
    store.close();
    expect(here.result).toMatchObject({ ok: true, replayed: true });
    expect(here.effects).toEqual([]);
  });
});
