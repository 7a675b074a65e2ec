import { describe, expect, it } from 'vitest';
import tickets from '../../suites/tickets/domain.ts';
import { approvalFingerprint, createDomainRegistry, MemoryReceiptStore } from '../../src/registry/index.ts';
import { ActionSpec, type Approval, type SideEffect, type ToolResult } from '../../src/spec/index.ts';

const READ_WRITE = { id: 'agent', permissions: ['ticket:read', 'ticket:write'] };

function trial(options: { approvals?: Approval[]; permissions?: string[] } = {}) {
  const state = tickets.createState();
  const effects: SideEffect[] = [];
  const registry = createDomainRegistry(tickets);
  const context = {
    state,
    actor: { id: 'agent', permissions: options.permissions ?? READ_WRITE.permissions },
    approvals: options.approvals ?? [],
    effects,
    receipts: new MemoryReceiptStore(),
  };
  const call = (tool: string, args: unknown) => registry.invoke({ tool, arguments: args }, context);
  return { state, effects, registry, call };
}

function output(result: ToolResult): any {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output;
}

const approveRecord = (args: { ticket_id: string; note: string }): Approval => ({
  tool: 'ticket.record_followup',
  fingerprint: approvalFingerprint(args, 'action_id'),
});

describe('tickets domain', () => {
  it('declares the five actions and six tools, each narrow tool named after its action', () => {
    expect(tickets.actions.map((action) => ActionSpec.parse(action).id)).toEqual([
      'ticket.get',
      'ticket.list',
      'ticket.preview_followup',
      'ticket.record_followup',
      'ticket.lookup_slow',
    ]);
    expect(tickets.tools.map((tool) => tool.name)).toEqual([
      ...tickets.actions.map((action) => action.id),
      'ticket.operation',
    ]);
    const record = tickets.actions.find((action) => action.id === 'ticket.record_followup')!;
    expect(record).toMatchObject({
      effect: 'write',
      permission: 'ticket:write',
      approval: 'required',
      idempotency_key: 'action_id',
      preview: 'ticket.preview_followup',
    });
  });

  it('has 25 tickets T-101…T-125, waiting when the number is a multiple of 3', async () => {
    const { call } = trial();
    for (let number = 101; number <= 125; number += 1) {
      expect(output(await call('ticket.get', { ticket_id: `T-${number}` }))).toEqual({
        id: `T-${number}`,
        status: number % 3 === 0 ? 'waiting' : 'open',
        subject: `Support request ${number}`,
        followups: [],
      });
    }
    expect((await call('ticket.get', { ticket_id: 'T-126' })) as unknown).toMatchObject({
      ok: false,
      error: { code: 'ticket_not_found', category: 'not_found' },
    });
  });

  it('gives every trial a fresh state', async () => {
    const first = trial({ approvals: [approveRecord({ ticket_id: 'T-101', note: 'n' })] });
    output(await first.call('ticket.record_followup', { ticket_id: 'T-101', note: 'n', action_id: 'act-001' }));
    const second = trial();
    expect(output(await second.call('ticket.get', { ticket_id: 'T-101' })).followups).toEqual([]);
    expect(tickets.views.followup_count!(second.state)).toBe(0);
  });

  it('pages through every ticket with an opaque cursor, at most 5 at a time', async () => {
    const { call } = trial();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = output(await call('ticket.list', cursor ? { limit: 4, cursor } : { limit: 4 }));
      expect(page.tickets.length).toBeLessThanOrEqual(4);
      seen.push(...page.tickets.map((ticket: { id: string }) => ticket.id));
      cursor = page.next_cursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(7);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => `T-${101 + index}`));
  });

  it('filters by status and refuses a cursor issued for another filter', async () => {
    const { call } = trial();
    const waiting = output(await call('ticket.list', { status: 'waiting' }));
    expect(waiting.tickets.map((ticket: { id: string }) => ticket.id)).toEqual([
      'T-102',
      'T-105',
      'T-108',
      'T-111',
      'T-114',
    ]);
    const rest = output(await call('ticket.list', { status: 'waiting', cursor: waiting.next_cursor }));
    expect(rest.tickets.map((ticket: { id: string }) => ticket.id)).toEqual(['T-117', 'T-120', 'T-123']);
    expect(rest.next_cursor).toBeNull();
    expect(await call('ticket.list', { status: 'open', cursor: waiting.next_cursor })).toMatchObject({
      ok: false,
      error: { code: 'invalid_cursor', category: 'validation' },
    });
  });

  it('refuses cursors it never issued and limits outside 1…5', async () => {
    const { call } = trial();
    const forged = `c1_${Buffer.from(JSON.stringify({ o: 99, s: null })).toString('base64url')}`;
    for (const cursor of ['page-2', 'c1_!!!', forged]) {
      expect(await call('ticket.list', { cursor })).toMatchObject({ ok: false, error: { code: 'invalid_cursor' } });
    }
    for (const limit of [0, 6, 2.5]) {
      expect(await call('ticket.list', { limit })).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    }
  });

  it('previews without writing; records an approved note once, logging the effect with the action id', async () => {
    const note = { ticket_id: 'T-103', note: 'Customer called back.' };
    const { call, effects, state } = trial({ approvals: [approveRecord(note)] });
    expect(output(await call('ticket.preview_followup', note))).toEqual({
      ticket_id: 'T-103',
      would_append: note.note,
      followup_count_after: 1,
      side_effects: 0,
    });
    expect(effects).toEqual([]);
    expect(output(await call('ticket.record_followup', { ...note, action_id: 'act-0001' }))).toEqual({
      receipt_id: 'receipt-act-0001',
      ticket_id: 'T-103',
      status: 'recorded',
      followup_count: 1,
    });
    expect(output(await call('ticket.record_followup', { ...note, action_id: 'act-0001' }))).toMatchObject({
      followup_count: 1,
    });
    expect(effects).toEqual([
      { action: 'ticket.record_followup', effect: 'write', target: 'T-103', change_id: 'act-0001' },
    ]);
    expect(output(await call('ticket.get', { ticket_id: 'T-103' })).followups).toEqual([note.note]);
    expect(tickets.views.followup_count!(state)).toBe(1);
    expect(tickets.views.followups!(state)).toEqual({ 'T-103': [note.note] });
  });

  it('the slow lookup answers like get when fast enough and times out, retryably, past 500 ms', async () => {
    const { call } = trial();
    expect(output(await call('ticket.lookup_slow', { ticket_id: 'T-104', simulated_latency_ms: 5 }))).toMatchObject({
      id: 'T-104',
      status: 'open',
    });
    expect(await call('ticket.lookup_slow', { ticket_id: 'T-104', simulated_latency_ms: 700 })).toMatchObject({
      ok: false,
      error: { code: 'tool_timeout', category: 'dependency', retryable: true, details: { timeout_ms: 500 } },
    });
  });

  it('shows the model a described JSON Schema for every narrow tool parameter', () => {
    const registry = createDomainRegistry(tickets);
    for (const action of tickets.actions) {
      const schema = registry.inputSchema(action.id) as {
        properties: Record<string, { description?: string }>;
        additionalProperties?: boolean;
      };
      expect(schema.additionalProperties).toBe(false);
      for (const [name, property] of Object.entries(schema.properties))
        expect(property.description, `${action.id}.${name}`).toBeTruthy();
      expect(registry.get(action.id)!.description.length).toBeGreaterThan(30);
    }
  });
});

describe('tickets wide tool (contract-less baseline)', () => {
  it('writes with no permission, no approval and no idempotency, logging the write as ticket.record_followup', async () => {
    const { call, effects, state } = trial({ permissions: [] });
    const args = { operation: 'record', payload: { ticket_id: 'T-101', note: 'same', action_id: 'act-1' } };
    expect(output(await call('ticket.operation', args))).toEqual({ status: 'done', ticket_id: 'T-101' });
    expect(output(await call('ticket.operation', args))).toEqual({ status: 'done', ticket_id: 'T-101' });
    expect(effects).toEqual([
      { action: 'ticket.record_followup', effect: 'write', target: 'T-101', change_id: 'act-1' },
      { action: 'ticket.record_followup', effect: 'write', target: 'T-101', change_id: 'act-1' },
    ]);
    expect(tickets.views.followups!(state)).toEqual({ 'T-101': ['same', 'same'] });
  });

  it('returns all 25 tickets from list, whatever limit or cursor was asked', async () => {
    const { call } = trial();
    const listed = output(
      await call('ticket.operation', { operation: 'list', payload: { limit: 2, cursor: 'nonsense' } }),
    );
    expect(listed.tickets).toHaveLength(25);
    expect(listed.next_cursor).toBeUndefined();
  });

  it('reports every failure as a generic tool_failed', async () => {
    const { call } = trial();
    for (const args of [
      { operation: 'get', payload: { ticket_id: 'T-999' } },
      { operation: 'frobnicate' },
      { operation: 'record', payload: {} },
      { operation: 'slow', payload: { ticket_id: 'T-101', simulated_latency_ms: 501 } },
    ]) {
      expect(await call('ticket.operation', args)).toMatchObject({
        ok: false,
        error: { code: 'tool_failed', retryable: false, details: {} },
      });
    }
  });

  it('answers get, preview and a fast slow lookup', async () => {
    const { call, effects } = trial();
    expect(output(await call('ticket.operation', { operation: 'get', payload: { ticket_id: 'T-102' } }))).toMatchObject(
      { id: 'T-102', status: 'waiting' },
    );
    expect(
      output(await call('ticket.operation', { operation: 'preview', payload: { ticket_id: 'T-102', note: 'n' } })),
    ).toEqual({ ticket_id: 'T-102', note: 'n' });
    expect(
      output(
        await call('ticket.operation', { operation: 'slow', payload: { ticket_id: 'T-102', simulated_latency_ms: 1 } }),
      ),
    ).toMatchObject({ id: 'T-102' });
    expect(effects).toEqual([]);
  });
});
