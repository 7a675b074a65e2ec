import { describe, expect, it } from 'vitest';
import billing from '../../suites/billing/domain.ts';
import {
  approvalFingerprint,
  createDomainRegistry,
  MemoryReceiptStore,
  type InvokeContext,
} from '../../src/registry/index.ts';
import type { Approval, SideEffect, ToolResult } from '../../src/spec/index.ts';
import type { BillingState } from '../../suites/billing/fixture.ts';

/** One simulated trial: fresh state, a registry, the actor's permissions and the approvals granted. */
function trial(permissions: string[] = ['billing:read', 'billing:refund']) {
  const state: BillingState = billing.createState();
  const registry = createDomainRegistry(billing);
  const effects: SideEffect[] = [];
  const approvals: Approval[] = [];
  const context: InvokeContext<BillingState> = {
    state,
    actor: { id: 'tester', permissions },
    approvals,
    effects,
    receipts: new MemoryReceiptStore(),
  };
  return {
    state,
    effects,
    call: (tool: string, args: Record<string, unknown>): Promise<ToolResult> =>
      registry.invoke({ tool, arguments: args }, context),
    approve: (tool: string, args: Record<string, unknown>) => {
      approvals.push({ tool, fingerprint: approvalFingerprint(args, registry.contract(tool)!.idempotency_key) });
    },
    view: (name: string) => billing.views[name]!(state),
  };
}

function output(result: ToolResult): any {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.output;
}

function errorCode(result: ToolResult): string | null {
  return result.ok ? null : result.error.code;
}

describe('billing domain: shape', () => {
  it('declares one narrow registry tool per action, with the same id', () => {
    expect(billing.actions.map((action) => action.id).sort()).toEqual(billing.tools.map((tool) => tool.name).sort());
    expect(billing.actions.map((action) => action.id)).toEqual([
      'billing.invoice.get',
      'billing.invoice.list',
      'billing.invoice.lookup_archive',
      'billing.customer.get',
      'billing.customer.search',
      'billing.refund.preview',
      'billing.refund.submit',
    ]);
  });

  it('makes refund.submit the only write: permission, approval, idempotency key and preview pairing', () => {
    const writes = billing.actions.filter((action) => action.effect !== 'read');
    expect(writes).toEqual([
      expect.objectContaining({
        id: 'billing.refund.submit',
        effect: 'write',
        permission: 'billing:refund',
        approval: 'required',
        idempotency_key: 'refund_id',
        preview: 'billing.refund.preview',
      }),
    ]);
    expect(createDomainRegistry(billing).contract('billing.refund.submit')).toMatchObject({
      idempotency_key: 'refund_id',
      approval: 'required',
      permission: 'billing:refund',
      effect: 'write',
    });
  });

  it('marks only the archive lookup as transient, with a shorter timeout than the default', () => {
    const registry = createDomainRegistry(billing);
    const transient = billing.tools
      .filter((tool) => registry.contract(tool.name)!.retry.transient)
      .map((tool) => tool.name);
    expect(transient).toEqual(['billing.invoice.lookup_archive']);
    expect(registry.contract('billing.invoice.lookup_archive')!.timeout_ms).toBe(1_000);
  });

  it('describes every parameter of every tool (what the model reads when a surface gives no override)', () => {
    const registry = createDomainRegistry(billing);
    for (const name of registry.names()) {
      const schema = registry.inputSchema(name) as { properties: Record<string, { description?: string }> };
      for (const [parameter, property] of Object.entries(schema.properties)) {
        expect(property.description, `${name}.${parameter}`).toMatch(/\S/);
      }
    }
  });
});

describe('billing domain: fixture', () => {
  it('holds customers C-1…C-8, current invoices INV-1001…INV-1040 and archived INV-0901…INV-0912', () => {
    const state = billing.createState() as BillingState;
    expect([...state.customers.keys()]).toEqual(['C-1', 'C-2', 'C-3', 'C-4', 'C-5', 'C-6', 'C-7', 'C-8']);
    expect(state.invoices.size).toBe(40);
    expect(state.invoices.has('INV-1001') && state.invoices.has('INV-1040')).toBe(true);
    expect([...state.archive.keys()].every((id) => /^INV-09\d\d$/.test(id))).toBe(true);
    expect(state.archive.size).toBe(12);
    const statuses = new Set([...state.invoices.values()].map((invoice) => invoice.status));
    expect(statuses).toEqual(new Set(['paid', 'open', 'void']));
  });

  it('gives each trial its own state: a refund in one trial is invisible to the next', async () => {
    const first = trial();
    first.approve('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000 });
    output(await first.call('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000, refund_id: 'r1' }));
    expect(first.view('refund_count')).toBe(1);

    const second = trial();
    expect(second.view('refund_count')).toBe(0);
    expect(second.view('refunds')).toEqual({});
    expect(output(await second.call('billing.invoice.get', { invoice_id: 'INV-1006' })).refunded_cents).toBe(0);
  });
});

describe('billing domain: lookups', () => {
  it('reads a current invoice by id, with its fixed amount and status', async () => {
    const { call } = trial();
    expect(output(await call('billing.invoice.get', { invoice_id: 'INV-1003' }))).toMatchObject({
      id: 'INV-1003',
      customer_id: 'C-3',
      amount_cents: 4750,
      status: 'paid',
      archived: false,
    });
    expect(output(await call('billing.invoice.get', { invoice_id: 'INV-1018' })).status).toBe('void');
    expect(output(await call('billing.invoice.get', { invoice_id: 'INV-1015' })).status).toBe('open');
  });

  it('does not find archived invoices with get, and says where they are', async () => {
    const { call } = trial();
    const result = await call('billing.invoice.get', { invoice_id: 'INV-0904' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'invoice_not_found', category: 'not_found' });
      expect(result.error.message).toMatch(/archive/);
    }
    expect(errorCode(await call('billing.invoice.get', { invoice_id: 'INV-1077' }))).toBe('invoice_not_found');
  });

  it('finds archived invoices only through the archive lookup', async () => {
    const { call } = trial();
    expect(
      output(await call('billing.invoice.lookup_archive', { invoice_id: 'INV-0910', simulated_latency_ms: 0 })),
    ).toMatchObject({ id: 'INV-0910', amount_cents: 7100, archived: true, refundable_cents: 0 });
    expect(
      errorCode(await call('billing.invoice.lookup_archive', { invoice_id: 'INV-1003', simulated_latency_ms: 0 })),
    ).toBe('invoice_not_found');
  });

  it('times the archive lookup out as a retryable error when it is slower than its boundary', async () => {
    const { call } = trial();
    const result = await call('billing.invoice.lookup_archive', {
      invoice_id: 'INV-0910',
      simulated_latency_ms: 1_500,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'tool_timeout', retryable: true });
  });

  it('lists a customer’s invoices newest first, filtered by status, across pages', async () => {
    const { call } = trial();
    const open = output(await call('billing.invoice.list', { customer_id: 'C-2', status: 'open' }));
    expect(open).toEqual({
      invoices: [expect.objectContaining({ id: 'INV-1010', status: 'open' })],
      next_cursor: null,
    });

    const first = output(await call('billing.invoice.list', { customer_id: 'C-3' }));
    expect(first.invoices.map((invoice: { id: string }) => invoice.id)).toEqual(['INV-1035', 'INV-1027', 'INV-1019']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = output(await call('billing.invoice.list', { customer_id: 'C-3', cursor: first.next_cursor }));
    expect(second.invoices.map((invoice: { id: string }) => invoice.id)).toEqual(['INV-1011', 'INV-1003']);
    expect(second.next_cursor).toBeNull();
  });

  it('rejects a made-up cursor, an unknown customer and a page size over 10', async () => {
    const { call } = trial();
    expect(errorCode(await call('billing.invoice.list', { customer_id: 'C-3', cursor: 'page-2' }))).toBe(
      'invalid_cursor',
    );
    expect(errorCode(await call('billing.invoice.list', { customer_id: 'C-9' }))).toBe('customer_not_found');
    expect(errorCode(await call('billing.invoice.list', { customer_id: 'C-3', limit: 20 }))).toBe('invalid_arguments');
  });

  it('reads a customer with its open balance, and searches customers by part of the name', async () => {
    const { call } = trial();
    expect(output(await call('billing.customer.get', { customer_id: 'C-4' }))).toMatchObject({
      name: 'Dunmore Bakery',
      open_balance_cents: 4750,
      invoice_count: 5,
    });
    expect(output(await call('billing.customer.search', { name: 'harbor' }))).toEqual({
      customers: [{ id: 'C-8', name: 'Harbor Florists', email: 'orders@harborflorists.example' }],
    });
    expect(output(await call('billing.customer.search', { name: 'zzz' }))).toEqual({ customers: [] });
    expect(errorCode(await call('billing.customer.get', { customer_id: 'C-12' }))).toBe('customer_not_found');
  });

  it('rejects ids that do not look like ids before any handler runs', async () => {
    const { call } = trial();
    expect(errorCode(await call('billing.invoice.get', { invoice_id: '1003' }))).toBe('invalid_arguments');
    expect(errorCode(await call('billing.refund.preview', { invoice_id: 'INV-1003', amount_cents: 12.5 }))).toBe(
      'invalid_arguments',
    );
  });
});

describe('billing domain: refund rules', () => {
  it('previews without writing anything', async () => {
    const { call, effects, view } = trial();
    expect(output(await call('billing.refund.preview', { invoice_id: 'INV-1014', amount_cents: 1000 }))).toMatchObject({
      already_refunded_cents: 2000,
      remaining_after_cents: 5600,
      submitted: false,
    });
    expect(effects).toEqual([]);
    expect(view('refund_count')).toBe(0);
  });

  it('refuses more than is still refundable with a validation error naming the limit', async () => {
    const { call } = trial();
    const result = await call('billing.refund.preview', { invoice_id: 'INV-1008', amount_cents: 50_000 });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error).toMatchObject({
        code: 'refund_exceeds_balance',
        category: 'validation',
        details: { refundable_cents: 3100 },
      });
    // Prior refunds count: INV-1033 is $42.00 with $12.00 already refunded.
    expect(errorCode(await call('billing.refund.preview', { invoice_id: 'INV-1033', amount_cents: 4200 }))).toBe(
      'refund_exceeds_balance',
    );
    expect(errorCode(await call('billing.refund.preview', { invoice_id: 'INV-1033', amount_cents: 3000 }))).toBeNull();
  });

  it('refuses void and unpaid invoices as conflicts, archived ones as outside the window, unknown ones as not found', async () => {
    const { call } = trial();
    const cases: [string, string, string][] = [
      ['INV-1018', 'invoice_void', 'conflict'],
      ['INV-1015', 'invoice_unpaid', 'conflict'],
      ['INV-0903', 'refund_window_closed', 'conflict'],
      ['INV-1077', 'invoice_not_found', 'not_found'],
    ];
    for (const [invoice_id, code, category] of cases) {
      const result = await call('billing.refund.preview', { invoice_id, amount_cents: 100 });
      expect(result.ok ? null : { code: result.error.code, category: result.error.category }, invoice_id).toEqual({
        code,
        category,
      });
    }
  });

  it('submits only with the refund permission and an approval bound to the same invoice and amount', async () => {
    const readOnly = trial(['billing:read']);
    readOnly.approve('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000 });
    expect(
      errorCode(
        await readOnly.call('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000, refund_id: 'r1' }),
      ),
    ).toBe('permission_denied');

    const { call, approve, effects, view } = trial();
    expect(
      errorCode(await call('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000, refund_id: 'r1' })),
    ).toBe('approval_required');
    approve('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 1000 });
    expect(
      errorCode(await call('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000, refund_id: 'r1' })),
    ).toBe('approval_required');
    expect(effects).toEqual([]);
    expect(view('refund_count')).toBe(0);
  });

  it('records the refund, its side effect and the views once approved', async () => {
    const { call, approve, effects, view } = trial();
    approve('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000 });
    expect(
      output(await call('billing.refund.submit', { invoice_id: 'INV-1006', amount_cents: 2000, refund_id: 'r1' })),
    ).toMatchObject({ status: 'submitted', total_refunded_cents: 2000, remaining_cents: 5500 });
    expect(effects).toEqual([
      expect.objectContaining({
        action: 'billing.refund.submit',
        effect: 'write',
        target: 'INV-1006',
        change_id: 'r1',
      }),
    ]);
    expect(view('refund_count')).toBe(1);
    expect(view('refunds')).toEqual({ 'INV-1006': 2000 });
    // The refund is visible to later reads in the same trial.
    expect(output(await call('billing.invoice.get', { invoice_id: 'INV-1006' })).refundable_cents).toBe(5500);
  });

  it('never refunds twice for one refund_id, and rejects reusing it for a different refund', async () => {
    const { call, approve, effects, view } = trial();
    approve('billing.refund.submit', { invoice_id: 'INV-1002', amount_cents: 1000 });
    approve('billing.refund.submit', { invoice_id: 'INV-1004', amount_cents: 1000 });
    await call('billing.refund.submit', { invoice_id: 'INV-1002', amount_cents: 1000, refund_id: 'same' });
    const again = await call('billing.refund.submit', {
      invoice_id: 'INV-1002',
      amount_cents: 1000,
      refund_id: 'same',
    });
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect(
      errorCode(await call('billing.refund.submit', { invoice_id: 'INV-1004', amount_cents: 1000, refund_id: 'same' })),
    ).toBe('idempotency_conflict');
    expect(effects).toHaveLength(1);
    expect(view('refunds')).toEqual({ 'INV-1002': 1000 });
  });

  it('guards idempotency in the backend too, when the registry has no receipt (e.g. a fresh receipt store)', async () => {
    const state = billing.createState() as BillingState;
    const submit = billing.tools.find((tool) => tool.name === 'billing.refund.submit')!;
    const recorded: unknown[] = [];
    const context = {
      state,
      actor: { id: 'tester', permissions: ['billing:refund'] },
      signal: new AbortController().signal,
      recordEffect: (effect: unknown) => recorded.push(effect),
      sleep: async () => {},
    };
    await submit.handler({ invoice_id: 'INV-1002', amount_cents: 1000, refund_id: 'k' }, context);
    await submit.handler({ invoice_id: 'INV-1002', amount_cents: 1000, refund_id: 'k' }, context);
    expect(recorded).toHaveLength(1);
    expect(state.invoices.get('INV-1002')!.refunded_cents).toBe(1000);
  });

  it('sums several refunds per invoice in the refunds view', async () => {
    const { call, approve, view } = trial();
    approve('billing.refund.submit', { invoice_id: 'INV-1001', amount_cents: 1000 });
    approve('billing.refund.submit', { invoice_id: 'INV-1001', amount_cents: 500 });
    await call('billing.refund.submit', { invoice_id: 'INV-1001', amount_cents: 1000, refund_id: 'a' });
    await call('billing.refund.submit', { invoice_id: 'INV-1001', amount_cents: 500, refund_id: 'b' });
    expect(view('refunds')).toEqual({ 'INV-1001': 1500 });
    expect(view('refund_count')).toBe(2);
  });
});
