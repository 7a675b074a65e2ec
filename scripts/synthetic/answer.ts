import type { Task, ToolError } from '../../src/spec/index.ts';
import { TASK_HINTS } from './task-hints.ts';

/**
 * The synthetic model's final answers: a short summary of what it read,
 * worded from the tool outputs themselves, or what it says when it stops
 * on an error or asks the user.
 */

const dollars = (cents: unknown) => (typeof cents === 'number' ? `$${(cents / 100).toFixed(2)}` : '?');
type Row = Record<string, unknown>;
const rows = (value: unknown): Row[] =>
  Array.isArray(value) ? value.filter((item): item is Row => item !== null && typeof item === 'object') : [];

/** One sentence about one tool output, by its shape. */
function describeOutput(output: unknown): string | null {
  if (output === null || typeof output !== 'object') return null;
  const row = output as Row;
  if (Array.isArray(row.tickets)) {
    const list = rows(row.tickets).map((ticket) => `${ticket.id} (${ticket.status})`);
    return list.length ? `Tickets: ${list.join(', ')}.` : 'No tickets matched.';
  }
  if (Array.isArray(row.invoices)) {
    const list = rows(row.invoices).map(
      (invoice) => `${invoice.id} ${dollars(invoice.amount_cents)} ${invoice.status}`,
    );
    return list.length ? `Invoices: ${list.join('; ')}.` : 'No invoices matched.';
  }
  if (Array.isArray(row.customers)) {
    const list = rows(row.customers).map((customer) => `${customer.name} is ${customer.id}`);
    return list.length ? `${list.join('; ')}.` : 'No customer matched that name.';
  }
  if (typeof row.subject === 'string') {
    const notes = Array.isArray(row.followups) ? row.followups.length : 0;
    return `${row.id} "${row.subject}" is ${row.status}, with ${notes === 0 ? 'no follow-ups yet' : `${notes} follow-up(s)`}.`;
  }
  if (typeof row.would_append === 'string' || (typeof row.note === 'string' && typeof row.ticket_id === 'string')) {
    return `Draft for ${row.ticket_id}: "${row.would_append ?? row.note}" (not posted).`;
  }
  if (row.status === 'recorded' || row.status === 'done') return `Recorded the follow-up on ${row.ticket_id}.`;
  if (typeof row.amount_cents === 'number' && typeof row.issued_on === 'string') {
    return `${row.id} is ${dollars(row.amount_cents)} for ${row.customer_id}, issued ${row.issued_on}, ${row.status}${row.archived ? ' (archived)' : ''}.`;
  }
  if (typeof row.email === 'string') {
    return `${row.name} (${row.id}): ${row.email}, ${row.plan} plan, open balance ${dollars(row.open_balance_cents)}.`;
  }
  if (row.submitted === false)
    return `A ${dollars(row.amount_cents)} refund on ${row.invoice_id} would leave ${dollars(row.remaining_after_cents)} refundable (preview only).`;
  if (row.status === 'submitted')
    return `Refunded ${dollars(row.amount_cents)} on ${row.invoice_id} (${row.refund_id}).`;
  return null;
}

/** The answer after the planned calls: what was read, plus the facts the user asked for. */
export function finalAnswer(
  task: Task,
  outputs: readonly unknown[],
  options: { complete: boolean; terse: boolean },
): string {
  if (options.terse) return 'Done.';
  const sentences: string[] = [];
  for (const output of outputs) {
    const sentence = describeOutput(output);
    if (sentence && !sentences.includes(sentence)) sentences.push(sentence);
  }
  let text = sentences.join(' ') || 'Done.';
  // A model that read everything it meant to knows the answer the task asks for.
  const missing = options.complete
    ? (task.expect.evidence ?? []).filter((item) => !text.toLowerCase().includes(item.toLowerCase()))
    : [];
  if (missing.length) text += ` In short: ${missing.join(', ')}.`;
  return text;
}

/** The answer on a task where no tool should be called. */
export function abstainAnswer(task: Task): string {
  const hint = TASK_HINTS[task.id]?.answer;
  if (task.expect.ask) {
    return task.domain === 'tickets'
      ? 'Which ticket do you mean, and what exactly should the note say? Please give me the ticket ID (like T-102).'
      : 'Which customer or invoice do you mean, and for how much? Please give me the ID (like INV-1003 or C-3).';
  }
  let text = hint ?? "That isn't something these tools can do, so I haven't called any.";
  const missing = (task.expect.evidence ?? []).filter((item) => !text.includes(item));
  if (missing.length) text += ` (${missing.join(', ')})`;
  return text;
}

/** What the model says when it stops on a structured error. */
export function errorAnswer(error: ToolError, what: string): string {
  switch (error.code) {
    case 'approval_required':
      return `This needs your approval first: do you approve ${what}?`;
    case 'permission_denied':
      return `I don't have permission to do that (${error.message}).`;
    case 'tool_timeout':
    case 'rate_limited':
      return 'The service timed out, so I could not finish. Please try again in a moment.';
    default:
      return `I couldn't do that: ${error.message}`;
  }
}

/** A short description of a call for questions to the user. */
export function describeCall(action: string, args: Record<string, unknown>): string {
  if (typeof args.note === 'string') return `adding "${args.note}" to ${args.ticket_id}`;
  if (typeof args.amount_cents === 'number') return `a ${dollars(args.amount_cents)} refund on ${args.invoice_id}`;
  return `${action} ${JSON.stringify(args)}`;
}
