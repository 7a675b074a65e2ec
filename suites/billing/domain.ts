import { z } from 'zod';
import {
  defineDomain,
  defineToolFor,
  fail,
  toolErrorFor,
  type ActionSpec,
  type ErrorTable,
  type Json,
  type ToolError,
} from 'toolmark';
import {
  createBillingState,
  openBalanceCents,
  refundableCents,
  REFUND_WINDOW_START,
  type BillingState,
  type Invoice,
} from './fixture.ts';

/**
 * The billing domain: namespaced actions with deliberate near-synonyms
 * (fast `invoice.get` vs slow `invoice.lookup_archive`, `customer.get` vs
 * `customer.search`, `refund.preview` vs `refund.submit`), so surfaces can be
 * compared on how well their names and descriptions separate them.
 */

const INVOICE_ID = z.string().regex(/^INV-\d{4}$/, 'an invoice id such as INV-1003');
const CUSTOMER_ID = z.string().regex(/^C-\d+$/, 'a customer id such as C-3');
const PAGE_SIZE_DEFAULT = 3;

/** Billing's own error codes; the framework's (invalid_cursor, idempotency_conflict, …) need no entry. */
const BILLING_ERRORS = {
  invoice_not_found: { category: 'not_found' },
  customer_not_found: { category: 'not_found' },
  refund_window_closed: { category: 'conflict', description: 'The invoice is older than the 12-month refund window.' },
  invoice_void: { category: 'conflict' },
  invoice_unpaid: { category: 'conflict' },
  refund_exceeds_balance: { category: 'validation' },
} as const satisfies ErrorTable;

const toolError = toolErrorFor(BILLING_ERRORS);

/** Tools with the handler's state typed as billing's and input/output typed from their zod schemas. */
const defineTool = defineToolFor<BillingState>();

/** Every read needs billing:read and nothing else. */
const READ = { effect: 'read', permission: 'billing:read', approval: 'never', idempotency_key: null } as const;

/** The runtime contract of each action, declared once: the tool of the same name enforces it. */
const POLICY: Record<string, Omit<ActionSpec, 'id' | 'description'>> = {
  'billing.invoice.get': READ,
  'billing.invoice.list': READ,
  'billing.invoice.lookup_archive': READ,
  'billing.customer.get': READ,
  'billing.customer.search': READ,
  'billing.refund.preview': READ,
  'billing.refund.submit': {
    effect: 'write',
    permission: 'billing:refund',
    approval: 'required',
    idempotency_key: 'refund_id',
    preview: 'billing.refund.preview',
  },
};

const InvoiceOutput = z.object({
  id: z.string(),
  customer_id: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  issued_on: z.string(),
  status: z.enum(['paid', 'open', 'void']),
  refunded_cents: z.number().int(),
  refundable_cents: z.number().int(),
  archived: z.boolean(),
});

function showInvoice(invoice: Invoice, archived: boolean): z.infer<typeof InvoiceOutput> {
  return {
    ...invoice,
    refundable_cents: invoice.status === 'paid' && !archived ? refundableCents(invoice) : 0,
    archived,
  };
}

function invoiceNotFound(state: BillingState, invoiceId: string): ToolError {
  if (state.archive.has(invoiceId)) {
    return toolError(
      'invoice_not_found',
      `${invoiceId} is not in the current ledger; invoices older than 12 months are kept in the archive.`,
      { invoice_id: invoiceId, archived: true },
    );
  }
  return toolError('invoice_not_found', `No invoice ${invoiceId}.`, { invoice_id: invoiceId });
}

/** The refund rules shared by preview and submit: an error, or the invoice it applies to. */
function checkRefund(
  state: BillingState,
  invoiceId: string,
  amountCents: number,
): { error: ToolError } | { invoice: Invoice } {
  const invoice = state.invoices.get(invoiceId);
  if (!invoice) {
    if (state.archive.has(invoiceId)) {
      return {
        error: toolError(
          'refund_window_closed',
          `${invoiceId} was issued before ${REFUND_WINDOW_START} and is outside the 12-month refund window.`,
          { invoice_id: invoiceId },
        ),
      };
    }
    return { error: invoiceNotFound(state, invoiceId) };
  }
  if (invoice.status === 'void') {
    return {
      error: toolError('invoice_void', `${invoiceId} is void; a void invoice cannot be refunded.`, {
        invoice_id: invoiceId,
        status: 'void',
      }),
    };
  }
  if (invoice.status === 'open') {
    return {
      error: toolError('invoice_unpaid', `${invoiceId} is still open (unpaid); only paid invoices can be refunded.`, {
        invoice_id: invoiceId,
        status: 'open',
      }),
    };
  }
  const refundable = refundableCents(invoice);
  if (amountCents > refundable) {
    return {
      error: toolError(
        'refund_exceeds_balance',
        `Refund of ${amountCents} cents exceeds the ${refundable} cents still refundable on ${invoiceId}.`,
        {
          invoice_id: invoiceId,
          amount_cents: amountCents,
          refundable_cents: refundable,
        },
      ),
    };
  }
  return { invoice };
}

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number | null {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

const invoiceGet = defineTool({
  name: 'billing.invoice.get',
  description:
    'Read one invoice from the current ledger (issued in the last 12 months) by its ID. Fast. Never changes anything.',
  input: z.object({ invoice_id: INVOICE_ID.describe('Invoice ID, e.g. INV-1003') }),
  output: InvoiceOutput,
  runtime: { timeout_ms: 2_000 },
  handler({ invoice_id }, { state }) {
    const invoice = state.invoices.get(invoice_id);
    return invoice ? showInvoice(invoice, false) : fail(invoiceNotFound(state, invoice_id));
  },
});

const invoiceList = defineTool({
  name: 'billing.invoice.list',
  description:
    "List one customer's current invoices, newest first, optionally filtered by status. Paginated: pass next_cursor back to get the next page.",
  input: z.object({
    customer_id: CUSTOMER_ID.describe('Customer ID, e.g. C-3'),
    status: z.enum(['paid', 'open', 'void']).optional().describe('Only invoices with this status'),
    limit: z.number().int().min(1).max(10).optional().describe(`Page size, 1-10 (default ${PAGE_SIZE_DEFAULT})`),
    cursor: z.string().optional().describe('next_cursor from the previous page'),
  }),
  output: z.object({
    invoices: z.array(
      z.object({ id: z.string(), amount_cents: z.number().int(), issued_on: z.string(), status: z.string() }),
    ),
    next_cursor: z.string().nullable(),
  }),
  runtime: { timeout_ms: 2_000 },
  handler({ customer_id, status, limit, cursor }, { state }) {
    if (!state.customers.has(customer_id))
      return fail(toolError('customer_not_found', `No customer ${customer_id}.`, { customer_id }));
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    if (offset === null)
      return fail(
        toolError(
          'invalid_cursor',
          `Cursor "${cursor}" was not issued by this tool; omit it to start from the first page.`,
          { cursor },
        ),
      );
    const matching = [...state.invoices.values()]
      .filter((invoice) => invoice.customer_id === customer_id && (status === undefined || invoice.status === status))
      .sort((a, b) => b.issued_on.localeCompare(a.issued_on));
    const size = limit ?? PAGE_SIZE_DEFAULT;
    const page = matching.slice(offset, offset + size);
    return {
      invoices: page.map(({ id, amount_cents, issued_on, status: invoiceStatus }) => ({
        id,
        amount_cents,
        issued_on,
        status: invoiceStatus,
      })),
      next_cursor: offset + size < matching.length ? encodeCursor(offset + size) : null,
    };
  },
});

const invoiceLookupArchive = defineTool({
  name: 'billing.invoice.lookup_archive',
  description:
    'Look up an archived invoice (issued more than 12 months ago) by its ID. Slow and sometimes times out; retrying is safe.',
  input: z.object({
    invoice_id: INVOICE_ID.describe('Archived invoice ID, e.g. INV-0904'),
    simulated_latency_ms: z
      .number()
      .int()
      .min(0)
      .max(5_000)
      .optional()
      .describe('Test hook: how long the archive takes to answer (default 150)'),
  }),
  output: InvoiceOutput,
  runtime: { retry: { transient: true, max_attempts: 3 }, timeout_ms: 1_000 },
  async handler({ invoice_id, simulated_latency_ms }, { state, sleep }) {
    await sleep(simulated_latency_ms ?? 150);
    const invoice = state.archive.get(invoice_id);
    if (invoice) return showInvoice(invoice, true);
    const hint = state.invoices.has(invoice_id) ? ' It is a current invoice, not an archived one.' : '';
    return fail(
      toolError('invoice_not_found', `No archived invoice ${invoice_id}.${hint}`, { invoice_id, current: hint !== '' }),
    );
  },
});

const customerGet = defineTool({
  name: 'billing.customer.get',
  description: 'Read one customer account by customer ID: name, email, plan and open (unpaid) balance.',
  input: z.object({ customer_id: CUSTOMER_ID.describe('Customer ID, e.g. C-3') }),
  output: z.object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    plan: z.string(),
    open_balance_cents: z.number().int(),
    invoice_count: z.number().int(),
  }),
  runtime: { timeout_ms: 2_000 },
  handler({ customer_id }, { state }) {
    const customer = state.customers.get(customer_id);
    if (!customer) return fail(toolError('customer_not_found', `No customer ${customer_id}.`, { customer_id }));
    const invoiceCount = [...state.invoices.values()].filter((invoice) => invoice.customer_id === customer_id).length;
    return { ...customer, open_balance_cents: openBalanceCents(state, customer_id), invoice_count: invoiceCount };
  },
});

const customerSearch = defineTool({
  name: 'billing.customer.search',
  description:
    'Find customers whose name contains the given text (case-insensitive). Use it when you know a name but not the customer ID.',
  input: z.object({ name: z.string().min(2).describe('Part of the customer name, e.g. "Acme"') }),
  output: z.object({ customers: z.array(z.object({ id: z.string(), name: z.string(), email: z.string() })) }),
  runtime: { timeout_ms: 2_000 },
  handler({ name }, { state }) {
    const needle = name.trim().toLowerCase();
    const customers = [...state.customers.values()]
      .filter((customer) => customer.name.toLowerCase().includes(needle))
      .map(({ id, name: customerName, email }) => ({ id, name: customerName, email }));
    return { customers };
  },
});

const RefundInput = {
  invoice_id: INVOICE_ID.describe('Invoice to refund, e.g. INV-1003'),
  amount_cents: z.number().int().positive().describe('Refund amount in cents, e.g. 2500 for $25.00'),
};

const refundPreview = defineTool({
  name: 'billing.refund.preview',
  description: 'Check a refund and show what it would do, without refunding anything. Read-only.',
  input: z.object(RefundInput),
  output: z.object({
    invoice_id: z.string(),
    customer_id: z.string(),
    amount_cents: z.number().int(),
    currency: z.string(),
    already_refunded_cents: z.number().int(),
    remaining_after_cents: z.number().int(),
    submitted: z.literal(false),
  }),
  runtime: { timeout_ms: 2_000 },
  handler({ invoice_id, amount_cents }, { state }) {
    const checked = checkRefund(state, invoice_id, amount_cents);
    if ('error' in checked) return fail(checked.error);
    const { invoice } = checked;
    return {
      invoice_id,
      customer_id: invoice.customer_id,
      amount_cents,
      currency: invoice.currency,
      already_refunded_cents: invoice.refunded_cents,
      remaining_after_cents: refundableCents(invoice) - amount_cents,
      submitted: false as const,
    };
  },
});

const refundSubmit = defineTool({
  name: 'billing.refund.submit',
  description:
    'Refund money on a paid invoice. Moves money; needs approval. refund_id makes retries safe: the same refund_id never refunds twice.',
  input: z.object({
    ...RefundInput,
    refund_id: z
      .string()
      .min(1)
      .max(64)
      .describe('Idempotency key you choose for this refund, e.g. "rf-inv1003-1"; reuse it when retrying'),
  }),
  output: z.object({
    refund_id: z.string(),
    invoice_id: z.string(),
    amount_cents: z.number().int(),
    currency: z.string(),
    status: z.literal('submitted'),
    total_refunded_cents: z.number().int(),
    remaining_cents: z.number().int(),
  }),
  runtime: { timeout_ms: 2_000 },
  handler({ invoice_id, amount_cents, refund_id }, { state, recordEffect }) {
    // The registry replays receipts first; this guard keeps the backend honest on its own.
    const earlier = state.refunds.find((refund) => refund.refund_id === refund_id);
    if (earlier && (earlier.invoice_id !== invoice_id || earlier.amount_cents !== amount_cents)) {
      return fail(
        toolError('idempotency_conflict', `refund_id ${refund_id} was already used for a different refund.`, {
          refund_id,
        }),
      );
    }
    const checked = checkRefund(state, invoice_id, earlier ? 0 : amount_cents);
    if ('error' in checked) return fail(checked.error);
    const { invoice } = checked;
    if (!earlier) {
      invoice.refunded_cents += amount_cents;
      state.refunds.push({ refund_id, invoice_id, amount_cents });
      recordEffect({ action: 'billing.refund.submit', effect: 'write', target: invoice_id, change_id: refund_id });
    }
    return {
      refund_id,
      invoice_id,
      amount_cents,
      currency: invoice.currency,
      status: 'submitted' as const,
      total_refunded_cents: invoice.refunded_cents,
      remaining_cents: refundableCents(invoice),
    };
  },
});

const TOOLS = [invoiceGet, invoiceList, invoiceLookupArchive, customerGet, customerSearch, refundPreview, refundSubmit];

/** Each narrow tool is exactly one action, described as the tool is, with the contract from POLICY. */
const ACTIONS: ActionSpec[] = TOOLS.map((tool) => ({
  id: tool.name,
  description: tool.description,
  ...POLICY[tool.name]!,
}));

function refundsByInvoice(state: BillingState): Json {
  const totals: Record<string, number> = {};
  for (const refund of state.refunds)
    totals[refund.invoice_id] = (totals[refund.invoice_id] ?? 0) + refund.amount_cents;
  return totals;
}

export default defineDomain<BillingState>({
  name: 'billing',
  description:
    'Invoices, customers and refunds: namespaced actions with near-synonyms (fast vs archive lookup, preview vs submit).',
  actions: ACTIONS,
  tools: TOOLS,
  errors: BILLING_ERRORS,
  createState: createBillingState,
  views: {
    /** Refunds submitted in this trial. */
    refund_count: (state) => state.refunds.length,
    /** Invoice id → total cents refunded in this trial (only invoices that got a refund). */
    refunds: refundsByInvoice,
  },
});
