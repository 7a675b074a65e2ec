/**
 * Issue 9 item 5 — the registry under fire. fast-check generates sequences
 * of calls (random tools, arguments, actors, approvals, colliding
 * idempotency keys, concurrent batches) against the real tickets and billing
 * domains with the durable FileReceiptStore, closing and reopening the same
 * file mid-sequence (a restart: new store, new registry, same backend).
 * Whatever the sequence, no write executes without the tool's permission and
 * an approval bound to its exact arguments, and no idempotency key ever
 * writes twice — before or after a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import billing from '../../suites/billing/domain.ts';
import tickets from '../../suites/tickets/domain.ts';
import { FileReceiptStore, approvalFingerprint, createDomainRegistry } from '../../src/registry/index.ts';
import type { Domain } from '../../src/registry/index.ts';
import { ToolResult, type Approval, type SideEffect, type ToolCall } from '../../src/spec/index.ts';

const work = mkdtempSync(path.join(tmpdir(), 'toolmark-registry-fire-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the property needs to know about one domain's guarded write. */
interface WriteCase {
  domain: Domain;
  /** Registry tools in play (the contract-less wide tool is left out: it has no contract to keep). */
  tools: string[];
  write: string;
  /** The read tool that previews the write: an approval for it must never approve the write. */
  preview: string;
  keyField: string;
  /** Every permission any tool needs, so actors can hold any subset. */
  permissions: string[];
  /** Write arguments without the key, from a small pool so approvals and keys collide. */
  writeArgs: fc.Arbitrary<Record<string, unknown>>;
  keys: string[];
  /** Any other call: reads, previews, junk. */
  otherCall: fc.Arbitrary<ToolCall>;
  /** How many writes the backend holds (to check against the effects seen). */
  writesInBackend(state: unknown): number;
}

const TICKETS_CASE: WriteCase = {
  domain: tickets as Domain,
  tools: tickets.tools.map((tool) => tool.name).filter((name) => name !== 'ticket.operation'),
  write: 'ticket.record_followup',
  preview: 'ticket.preview_followup',
  keyField: 'action_id',
  permissions: ['ticket:read', 'ticket:write'],
  writeArgs: fc.record({
    ticket_id: fc.constantFrom('T-101', 'T-102', 'T-999'),
    note: fc.constantFrom('Called back.', 'Refund issued.'),
  }),
  keys: ['act-0001', 'act-0002', 'act-0003'],
  otherCall: fc.oneof(
    fc.record({
      tool: fc.constantFrom('ticket.get', 'ticket.lookup_slow'),
      arguments: fc.record({ ticket_id: fc.constantFrom('T-101', 'T-102', 'T-7') }),
    }),
    fc.record({
      tool: fc.constant('ticket.preview_followup'),
      arguments: fc.record({
        ticket_id: fc.constantFrom('T-101', 'T-102'),
        note: fc.constantFrom('Called back.', 'Refund issued.'),
      }),
    }),
    fc.record({
      tool: fc.constantFrom('ticket.list', 'ticket.nope', 'ticket.record_followup'),
      arguments: fc.jsonValue(),
    }),
  ),
  writesInBackend: (state) => tickets.views.followup_count!(state as never) as number,
};

const BILLING_CASE: WriteCase = {
  domain: billing as Domain,
  tools: billing.tools.map((tool) => tool.name),
  write: 'billing.refund.submit',
  preview: 'billing.refund.preview',
  keyField: 'refund_id',
  permissions: ['billing:read', 'billing:refund'],
  writeArgs: fc.record({
    invoice_id: fc.constantFrom('INV-1001', 'INV-1003', 'INV-1004'),
    amount_cents: fc.constantFrom(100, 2500),
  }),
  keys: ['rf-1', 'rf-2', 'rf-3'],
  otherCall: fc.oneof(
    fc.record({
      tool: fc.constantFrom('billing.invoice.get'),
      arguments: fc.record({ invoice_id: fc.constantFrom('INV-1001', 'INV-9999') }),
    }),
    fc.record({
      tool: fc.constant('billing.refund.preview'),
      arguments: fc.record({
        invoice_id: fc.constantFrom('INV-1001', 'INV-1003'),
        amount_cents: fc.constantFrom(100, 2500),
      }),
    }),
    fc.record({
      tool: fc.constantFrom('billing.invoice.list', 'billing.refund.submit', 'billing.nope'),
      arguments: fc.jsonValue(),
    }),
  ),
  writesInBackend: (state) => (state as { refunds: unknown[] }).refunds.length,
};

type Step =
  | { kind: 'call'; call: ToolCall; actor: string[]; approvals: Approval[] }
  | { kind: 'batch'; calls: ToolCall[]; actor: string[]; approvals: Approval[] }
  | { kind: 'restart' }
  /** Send an earlier call again, as a client retrying after a crash would (same actor and approvals). */
  | { kind: 'repeat'; back: number };

function steps(test: WriteCase): fc.Arbitrary<Step[]> {
  const writeCall = fc
    .record({ args: test.writeArgs, key: fc.constantFrom(...test.keys) })
    .map(({ args, key }): ToolCall => ({ tool: test.write, arguments: { ...args, [test.keyField]: key } }));
  // Approvals: right tool + right fingerprint (sometimes), the preview tool's name with the same
  // fingerprint, and a fingerprint that wrongly includes the key — only the first may count.
  const approval = fc
    .record({
      args: test.writeArgs,
      key: fc.constantFrom(...test.keys),
      shape: fc.constantFrom('bound', 'bound', 'bound', 'other-tool', 'with-key'),
    })
    .map(({ args, key, shape }): Approval => {
      if (shape === 'other-tool') return { tool: test.preview, fingerprint: approvalFingerprint(args, test.keyField) };
      if (shape === 'with-key')
        return { tool: test.write, fingerprint: approvalFingerprint({ ...args, [test.keyField]: key }, null) };
      return { tool: test.write, fingerprint: approvalFingerprint(args, test.keyField) };
    });
  // Mostly fully-permitted actors with several approvals, so many calls reach the write path.
  const who = {
    actor: fc.oneof(
      { arbitrary: fc.constant(test.permissions), weight: 3 },
      { arbitrary: fc.subarray(test.permissions), weight: 2 },
    ),
    approvals: fc.array(approval, { maxLength: 6 }),
  };
  const call = fc.oneof({ arbitrary: writeCall, weight: 3 }, { arbitrary: test.otherCall, weight: 1 });
  const step: fc.Arbitrary<Step> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('call' as const), call, ...who }), weight: 8 },
    {
      arbitrary: fc.record({
        kind: fc.constant('batch' as const),
        calls: fc.array(writeCall, { minLength: 2, maxLength: 3 }),
        ...who,
      }),
      weight: 2,
    },
    { arbitrary: fc.constant({ kind: 'restart' as const }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('repeat' as const), back: fc.nat({ max: 3 }) }), weight: 4 },
  );
  return fc.array(step, { minLength: 1, maxLength: 24 });
}

interface Tally {
  writes: number;
  replaysAfterRestart: number;
  conflicts: number;
  approvalRequired: number;
  permissionDenied: number;
  restarts: number;
}

describe.each([
  ['tickets', TICKETS_CASE],
  ['billing', BILLING_CASE],
] as const)('registry under fire: %s', (_name, test) => {
  it('no write without permission and a bound approval; never two writes for one key, across restarts', async () => {
    const tally: Tally = {
      writes: 0,
      replaysAfterRestart: 0,
      conflicts: 0,
      approvalRequired: 0,
      permissionDenied: 0,
      restarts: 0,
    };
    const spec = test.domain.tools.find((tool) => tool.name === test.write)!;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(steps(test), async (sequence) => {
        const file = path.join(work, `${_name}-${(run += 1)}-receipts`);
        // The backend outlives restarts (it is the outside world); the store and registry do not.
        const state = test.domain.createState();
        let store = new FileReceiptStore(file);
        let registry = createDomainRegistry(test.domain, test.tools);
        /** key → fingerprint of its one executed write, and the restart count when it happened. */
        const written = new Map<string, { fingerprint: string; epoch: number }>();
        let epoch = 0;
        try {
          const invoke = async (call: ToolCall, actor: string[], approvals: Approval[]) => {
            const effects: SideEffect[] = [];
            const result = await registry.invoke(call, {
              state,
              actor: { id: 'fuzz', permissions: actor },
              approvals,
              effects,
              receipts: store,
            });
            return { call, actor, approvals, result, effects };
          };
          const sent: { call: ToolCall; actor: string[]; approvals: Approval[] }[] = [];
          for (const step of sequence) {
            if (step.kind === 'repeat' && sent.length === 0) continue;
            if (step.kind === 'restart') {
              store.close();
              store = new FileReceiptStore(file);
              registry = createDomainRegistry(test.domain, test.tools);
              epoch += 1;
              tally.restarts += 1;
              continue;
            }
            let outcomes: Awaited<ReturnType<typeof invoke>>[];
            if (step.kind === 'repeat') {
              const again = sent[Math.max(0, sent.length - 1 - step.back)]!;
              outcomes = [await invoke(again.call, again.actor, again.approvals)];
            } else if (step.kind === 'call') outcomes = [await invoke(step.call, step.actor, step.approvals)];
            else outcomes = await Promise.all(step.calls.map((call) => invoke(call, step.actor, step.approvals)));
            sent.push(...outcomes);
            for (const { call, actor, approvals, result, effects } of outcomes) {
              expect(ToolResult.safeParse(result).success).toBe(true);
              if (!result.ok && result.error.code === 'approval_required') tally.approvalRequired += 1;
              if (!result.ok && result.error.code === 'permission_denied') tally.permissionDenied += 1;
              if (!result.ok && result.error.code === 'idempotency_conflict') tally.conflicts += 1;
              expect(effects.length).toBeLessThanOrEqual(1);
              const args = call.arguments as Record<string, unknown>;
              const key =
                call.tool === test.write && args && typeof args === 'object' ? args[test.keyField] : undefined;
              const earlier = typeof key === 'string' ? written.get(key) : undefined;
              if (effects.length === 1) {
                // A write happened: it must be the guarded tool, with permission, with an approval bound to these args, for a fresh key.
                expect(call.tool).toBe(test.write);
                expect(actor).toContain(registry.contract(test.write)!.permission);
                const fingerprint = approvalFingerprint(args, test.keyField);
                expect(approvals).toContainEqual({ tool: test.write, fingerprint });
                expect(earlier, `key ${String(key)} wrote twice`).toBeUndefined();
                expect(effects[0]!.change_id).toBe(key);
                written.set(key as string, { fingerprint, epoch });
                tally.writes += 1;
              } else if (
                earlier &&
                actor.includes(registry.contract(test.write)!.permission!) &&
                approvals.some(
                  (approval) =>
                    approval.tool === test.write && approval.fingerprint === approvalFingerprint(args, test.keyField),
                )
              ) {
                // The key was used: the receipt (durable across restarts) answers instead of the handler.
                const same = earlier.fingerprint === approvalFingerprint(args, test.keyField);
                if (same) expect(result).toMatchObject({ ok: true, replayed: true });
                else expect(result).toMatchObject({ ok: false, error: { code: 'idempotency_conflict' } });
                if (same && earlier.epoch < epoch) tally.replaysAfterRestart += 1;
              }
            }
          }
          // The backend agrees: exactly one stored write per key that wrote.
          expect(test.writesInBackend(state)).toBe(written.size);
        } finally {
          store.close();
        }
      }),
      { numRuns: 300, seed: 20261129 },
    );
    console.info(`${_name}: ${JSON.stringify(tally)}`);
    // The generators must reach every branch, or the property proves nothing.
    expect(tally.writes).toBeGreaterThan(20);
    expect(tally.replaysAfterRestart).toBeGreaterThanOrEqual(3);
    expect(tally.conflicts).toBeGreaterThan(5);
    expect(tally.approvalRequired).toBeGreaterThan(20);
    expect(tally.permissionDenied).toBeGreaterThan(20);
    expect(tally.restarts).toBeGreaterThan(20);
  }, 300_000);
});
