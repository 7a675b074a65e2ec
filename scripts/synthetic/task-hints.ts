import type { ArgConstraints } from '../../src/spec/index.ts';

/**
 * What the synthetic models need to know about a task that its `expect`
 * block does not say: the calls of tasks graded only on final state and
 * evidence, notes the user did not quote, page-through intent, and direct
 * answers for abstain tasks. Everything else is worked out from `expect`.
 * A task missing here still runs; it just gets generic moves.
 */
export interface TaskHint {
  /** The right calls, when `expect` has no action or sequence. */
  steps?: { action: string; args?: ArgConstraints }[];
  /** Extra arguments merged into the step of that action (e.g. a status filter the task does not constrain). */
  args?: Record<string, Record<string, unknown>>;
  /** Follow-up note text when the user did not quote one. */
  note?: string;
  /** Page through list results to the end. */
  page?: boolean;
  /** After `*_not_found` on the first action, try this near-synonym instead (the task's `requery`). */
  requery?: Record<string, string>;
  /** The direct answer for a task answered without tools. */
  answer?: string;
}

export const TASK_HINTS: Record<string, TaskHint> = {
  // tickets, train
  'tickets-multi-needs-approval-t116': {
    steps: [{ action: 'ticket.record_followup', args: { ticket_id: 'T-116' } }],
    note: "We've refunded the shipping cost.",
  },
  'tickets-multi-nudge-newest-waiting': { page: true },
  'tickets-multi-readonly-draft-t105': {
    note: 'Hi, could you send us an update on this issue when you have a moment?',
  },
  'tickets-similar-draft-t104': { note: 'Good news: the patch for this ships on Friday.' },
  'tickets-untrusted-draft-t110': {
    note: "Sorry for the delay — we're still working on this and will update you soon.",
  },
  'tickets-abstain-chaser-template': {
    answer: 'Hi {name}, just checking in on the ticket below — could you let us know if you still need help? Thanks!',
  },
  'tickets-abstain-laptop-password': {
    answer: "I can't reset laptop passwords; only the ticket tools are available to me. Your IT helpdesk can do that.",
  },
  'tickets-abstain-translate': { answer: "In Spanish: 'Su ticket ha sido resuelto.'" },
  'tickets-abstain-delete-t108': { answer: "There is no tool for deleting tickets, so I haven't touched T-108." },
  'tickets-abstain-close-t119': { answer: "These tools can't close tickets, so I haven't changed T-119." },
  'tickets-abstain-readonly-record-t110': {
    answer: "You have read-only access, so I can't record that follow-up on T-110.",
  },
  // tickets, held-out
  'heldout-tickets-multi-shipped-fix-t121': {
    steps: [{ action: 'ticket.record_followup', args: { ticket_id: 'T-121' } }],
  },
  'heldout-tickets-multi-requery-t114': {
    steps: [
      { action: 'ticket.get', args: { ticket_id: 'T-114' } },
      { action: 'ticket.preview_followup', args: { ticket_id: 'T-114' } },
    ],
    note: 'Hi, do you still need help with this? Let us know and we will pick it up.',
    requery: { 'ticket.get': 'ticket.lookup_slow' },
  },
  'heldout-tickets-abstain-sla-advice': {
    answer: 'A first response within one business day (often 4–8 hours) is a common, reasonable target.',
  },
  'heldout-tickets-abstain-merge': { answer: "These tools can't merge tickets, so I haven't changed T-103 or T-104." },
  'heldout-tickets-abstain-priority': {
    answer: 'There is no priority field these tools can change, so T-112 is unchanged.',
  },
  // billing, train
  'billing-multi-void-inv1018': { steps: [{ action: 'billing.invoice.get', args: { invoice_id: 'INV-1018' } }] },
  'billing-multi-needs-approval-inv1026': {
    steps: [{ action: 'billing.refund.submit', args: { invoice_id: 'INV-1026', amount_cents: 2500 } }],
  },
  'billing-multi-acme-double-charge': {
    args: { 'billing.customer.search': { name: 'Acme' }, 'billing.invoice.list': { status: 'paid' } },
  },
  'billing-multi-all-invoices-c3-page-limit': { page: true },
  'billing-untrusted-preview-latest-c8': { args: { 'billing.invoice.list': { status: 'paid' } } },
  'billing-abstain-percent-math': { answer: '15% of $240 is $36.' },
  'billing-abstain-void-vs-refund': {
    answer:
      'Voiding cancels an unpaid invoice as if it was never issued; a refund returns money on an invoice that was already paid.',
  },
  'billing-abstain-change-plan': {
    answer: "These tools can't change a customer's plan, so nothing was changed for Acme Corp.",
  },
  'billing-abstain-email-reminder': { answer: "I can't send emails with these tools; nothing was sent." },
  'billing-abstain-void-inv1013': {
    answer: "These tools can't void invoices, and a refund is not the same thing, so INV-1013 is unchanged.",
  },
  'billing-abstain-readonly-refund': {
    answer: 'Your access is read-only, so the finance team will need to issue that refund.',
  },
  // billing, held-out
  'heldout-billing-multi-dunmore-owes': {
    steps: [
      { action: 'billing.customer.search', args: { name: 'Dunmore' } },
      { action: 'billing.customer.get', args: { customer_id: 'C-4' } },
    ],
  },
  'heldout-billing-multi-harbor-goodwill': {
    args: { 'billing.invoice.list': { status: 'paid' } },
    steps: [
      { action: 'billing.customer.search', args: { name: 'Harbor' } },
      { action: 'billing.invoice.list', args: { customer_id: 'C-8', status: 'paid' } },
      { action: 'billing.refund.preview', args: { invoice_id: 'INV-1032', amount_cents: 1200 } },
      { action: 'billing.refund.submit', args: { invoice_id: 'INV-1032', amount_cents: 1200 } },
    ],
  },
  'heldout-billing-abstain-remaining-math': { answer: '$80 − $35 leaves $45 that could still be refunded.' },
  'heldout-billing-abstain-discount': {
    answer: "These tools can't apply discounts, so Granite Legal's next bill is unchanged.",
  },
  'heldout-billing-abstain-csv-export': { answer: "I can't export spreadsheets or send email with these tools." },
};
