import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import tickets from '../../suites/tickets/domain.ts';
import { approvalFingerprint, createDomainRegistry, MemoryReceiptStore } from '../../src/registry/index.ts';
import { ToolResult, type Approval, type SideEffect } from '../../src/spec/index.ts';

const TOOL_NAMES = [...tickets.tools.map((tool) => tool.name), 'ticket.nope'];
const NOTES = ['Called back.', 'Refund issued.', ''];
const TICKETS = ['T-101', 'T-102', 'T-999', '102'];

// Arguments close enough to valid that many calls reach the later pipeline
// steps, mixed with arbitrary JSON that mostly stops at validation.
const nearValid = fc.record(
  {
    ticket_id: fc.oneof(fc.constantFrom(...TICKETS), fc.string(), fc.integer()),
    note: fc.oneof(fc.constantFrom(...NOTES), fc.string()),
    action_id: fc.oneof(fc.constantFrom('act-0001', 'act-0002', 'ab'), fc.string()),
    limit: fc.oneof(fc.integer({ min: -1, max: 7 }), fc.double()),
    cursor: fc.oneof(fc.constant('c1_eyJvIjo1LCJzIjpudWxsfQ'), fc.string()),
    status: fc.constantFrom('open', 'waiting', 'closed'),
    // Kept small: timeouts have their own tests, and 500 ms waits would make this slow.
    simulated_latency_ms: fc.integer({ min: 0, max: 15 }),
  },
  { requiredKeys: [] },
);
const wideArgs = fc.record(
  { operation: fc.oneof(fc.constantFrom('get', 'list', 'preview', 'record', 'slow'), fc.string()), payload: nearValid },
  { requiredKeys: ['operation'] },
);
const argumentsArb = fc.oneof(fc.jsonValue(), nearValid, wideArgs);
// Well-formed writes from a small pool, so keys and approvals collide often.
const WRITE_TICKETS = ['T-101', 'T-102'];
const WRITE_NOTES = ['Called back.', 'Refund issued.'];
const recordArgs = fc.record({
  ticket_id: fc.constantFrom(...WRITE_TICKETS),
  note: fc.constantFrom(...WRITE_NOTES),
  action_id: fc.constantFrom('act-0001', 'act-0002'),
});
const callArb = fc.oneof(
  fc.record({ tool: fc.constantFrom(...TOOL_NAMES), arguments: argumentsArb }),
  { arbitrary: fc.record({ tool: fc.constant('ticket.record_followup'), arguments: recordArgs }), weight: 3 },
  fc.record({
    tool: fc.constant('ticket.operation'),
    arguments: fc.record({ operation: fc.constant('record'), payload: recordArgs }),
  }),
);

const approvalArb: fc.Arbitrary<Approval> = fc
  .record({ ticket_id: fc.constantFrom(...WRITE_TICKETS), note: fc.constantFrom(...WRITE_NOTES) })
  .map((args) => ({ tool: 'ticket.record_followup', fingerprint: approvalFingerprint(args, 'action_id') }));

const trialArb = fc.record({
  permissions: fc.subarray(['ticket:read', 'ticket:write']),
  approvals: fc.array(approvalArb, { maxLength: 4 }),
  calls: fc.array(callArb, { minLength: 1, maxLength: 8 }),
});

describe('registry under arbitrary input (property)', () => {
  it('always returns a structured result, and the typed tools never write without permission and approval, nor twice for one key', async () => {
    let typedWrites = 0;
    let typedReplays = 0;
    await fc.assert(
      fc.asyncProperty(trialArb, async ({ permissions, approvals, calls }) => {
        const registry = createDomainRegistry(tickets);
        const effects: SideEffect[] = [];
        const context = {
          state: tickets.createState(),
          actor: { id: 'fuzz', permissions },
          approvals,
          effects,
          receipts: new MemoryReceiptStore(),
        };
        const typedKeys = new Set<string>();
        for (const call of calls) {
          const before = effects.length;
          const result = await registry.invoke(call, context);
          // Structured: a valid ToolResult, errors with code, category, retryability.
          expect(ToolResult.safeParse(result).success).toBe(true);
          const written = effects.slice(before);
          if (call.tool === 'ticket.operation') continue; // the contract-less baseline may write anything
          for (const effect of written) {
            expect(call.tool).toBe('ticket.record_followup');
            expect(permissions).toContain('ticket:write');
            const fingerprint = approvalFingerprint(call.arguments, 'action_id');
            expect(approvals.some((approval) => approval.fingerprint === fingerprint)).toBe(true);
            expect(typedKeys.has(effect.change_id!)).toBe(false);
            typedKeys.add(effect.change_id!);
            typedWrites += 1;
          }
          if (result.ok && result.replayed) typedReplays += 1;
          if (!result.ok || result.replayed) expect(written).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
    // The generators must reach the write path, or the property above proves nothing.
    expect(typedWrites).toBeGreaterThan(0);
    expect(typedReplays).toBeGreaterThan(0);
  });

  it('never rejects, whatever the tool name or arguments', async () => {
    const registry = createDomainRegistry(tickets);
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.jsonValue(), async (tool, args) => {
        const result = await registry.invoke(
          { tool, arguments: args },
          {
            state: tickets.createState(),
            actor: { id: 'fuzz', permissions: ['ticket:read', 'ticket:write'] },
            approvals: [],
            effects: [],
            receipts: new MemoryReceiptStore(),
          },
        );
        expect(ToolResult.safeParse(result).success).toBe(true);
        if (!TOOL_NAMES.includes(tool)) expect(result).toMatchObject({ ok: false, error: { code: 'tool_not_found' } });
      }),
      { numRuns: 300 },
    );
  });
});
