/**
 * The billing backend fixture: customers, current invoices, archived
 * invoices and the refunds recorded during one trial. Everything is derived
 * from fixed formulas so every trial (and every reader of docs/example.md)
 * sees exactly the same data.
 */

/** The fixture's "today". Invoices issued more than a year before it live in the archive. */
export const FIXTURE_TODAY = '2025-07-01';

/** Invoices issued before this date are archived and can no longer be refunded. */
export const REFUND_WINDOW_START = '2024-07-01';

export type InvoiceStatus = 'paid' | 'open' | 'void';

export interface Customer {
  id: string;
  name: string;
  email: string;
  plan: 'starter' | 'pro' | 'enterprise';
}

export interface Invoice {
  id: string;
  customer_id: string;
  amount_cents: number;
  currency: 'USD';
  issued_on: string;
  status: InvoiceStatus;
  /** Refunded before the trial began plus anything refunded during it. */
  refunded_cents: number;
}

/** One refund executed during the trial. */
export interface RefundRecord {
  refund_id: string;
  invoice_id: string;
  amount_cents: number;
}

export interface BillingState {
  customers: Map<string, Customer>;
  /** Invoices of the last twelve months, INV-1001…INV-1040. */
  invoices: Map<string, Invoice>;
  /** Invoices older than a year, INV-0901…INV-0912: only the archive lookup finds them. */
  archive: Map<string, Invoice>;
  /** Refunds submitted in this trial, in order. */
  refunds: RefundRecord[];
}

const CUSTOMERS: readonly Customer[] = [
  { id: 'C-1', name: 'Acme Corp', email: 'billing@acme.example', plan: 'pro' },
  { id: 'C-2', name: 'Birchwood Ltd', email: 'accounts@birchwood.example', plan: 'starter' },
  { id: 'C-3', name: 'Cobalt Analytics', email: 'finance@cobalt.example', plan: 'enterprise' },
  { id: 'C-4', name: 'Dunmore Bakery', email: 'hello@dunmorebakery.example', plan: 'starter' },
  { id: 'C-5', name: 'Elm Street Dental', email: 'office@elmstreetdental.example', plan: 'pro' },
  { id: 'C-6', name: 'Fjord Logistics', email: 'ap@fjord.example', plan: 'enterprise' },
  { id: 'C-7', name: 'Granite Legal', email: 'billing@granitelegal.example', plan: 'pro' },
  { id: 'C-8', name: 'Harbor Florists', email: 'orders@harborflorists.example', plan: 'starter' },
];

/** Refunds that happened before any trial (so "refund what is left" has something to subtract). */
const PRIOR_REFUNDS: Readonly<Record<string, number>> = { 'INV-1014': 2_000, 'INV-1033': 1_200 };

function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Current invoice number n = 1…40 (INV-1001…INV-1040). */
function currentInvoice(n: number): Invoice {
  const id = `INV-${1000 + n}`;
  const status: InvoiceStatus = n % 9 === 0 ? 'void' : n % 5 === 0 ? 'open' : 'paid';
  return {
    id,
    customer_id: `C-${((n - 1) % 8) + 1}`,
    amount_cents: 2_000 + ((n * 13) % 17) * 550,
    currency: 'USD',
    issued_on: addDays('2024-07-03', (n - 1) * 9),
    status,
    refunded_cents: PRIOR_REFUNDS[id] ?? 0,
  };
}

/** Archived invoice number n = 1…12 (INV-0901…INV-0912), issued 2023-01 … 2024-04. */
function archivedInvoice(n: number): Invoice {
  return {
    id: `INV-09${String(n).padStart(2, '0')}`,
    customer_id: `C-${((n + 2) % 8) + 1}`,
    amount_cents: 3_500 + ((n * 7) % 11) * 900,
    currency: 'USD',
    issued_on: addDays('2023-01-10', (n - 1) * 41),
    status: n === 7 ? 'void' : 'paid',
    refunded_cents: 0,
  };
}

/** A fresh backend: a new object graph every call, so trials never share state. */
export function createBillingState(): BillingState {
  const invoices = new Map<string, Invoice>();
  for (let n = 1; n <= 40; n += 1) {
    const invoice = currentInvoice(n);
    invoices.set(invoice.id, invoice);
  }
  const archive = new Map<string, Invoice>();
  for (let n = 1; n <= 12; n += 1) {
    const invoice = archivedInvoice(n);
    archive.set(invoice.id, invoice);
  }
  return {
    customers: new Map(CUSTOMERS.map((customer) => [customer.id, { ...customer }])),
    invoices,
    archive,
    refunds: [],
  };
}

/** Amount still refundable on an invoice. */
export function refundableCents(invoice: Invoice): number {
  return invoice.amount_cents - invoice.refunded_cents;
}

/** Sum of the open (unpaid) invoices of one customer. */
export function openBalanceCents(state: BillingState, customerId: string): number {
  let total = 0;
  for (const invoice of state.invoices.values()) {
    if (invoice.customer_id === customerId && invoice.status === 'open') total += invoice.amount_cents;
  }
  return total;
}

/** Format cents as dollars with two decimals, e.g. 9150 → "91.50". */
export function formatDollars(cents: number): string {
  return (cents / 100).toFixed(2);
}
