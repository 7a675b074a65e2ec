import { z } from 'zod';
import { defineToolFor, fail, type ToolSpec } from 'toolmark';
import { appendFollowup, decodeCursor, encodeCursor, ticketView, type TicketState } from './backend.ts';
import { toolError } from './errors.ts';

/**
 * The five narrow tools: one per action (same name), each enforcing its
 * action's contract (domain.ts); only the slow lookup adds a timeout and
 * retry of its own.
 * Descriptions and `.describe()` texts are what a model sees (as JSON Schema).
 */

const TicketId = z
  .string()
  .regex(/^T-\d{3}$/, 'a ticket ID looks like T-102')
  .describe('Ticket ID such as T-102 (the letter T, a dash, three digits).');
const Note = z.string().min(1).max(1000).describe('The follow-up text, exactly as it should appear on the ticket.');
const Status = z.enum(['open', 'waiting']);

const TicketOutput = z.strictObject({
  id: z.string(),
  status: Status,
  subject: z.string(),
  followups: z.array(z.string()),
});
const PAGE_LIMIT = 5;

/** Tools on the ticket backend, typed from their zod schemas. */
const defineTool = defineToolFor<TicketState>();
const SLOW_DEFAULT_LATENCY_MS = 50;

function notFound(ticketId: string) {
  return fail(
    toolError('ticket_not_found', `Ticket ${ticketId} does not exist. Use ticket.list to see existing tickets.`, {
      ticket_id: ticketId,
    }),
  );
}

export const getTicket = defineTool({
  name: 'ticket.get',
  description: 'Read one support ticket by ID: status, subject and follow-ups. Read-only; never changes the ticket.',
  input: z.strictObject({ ticket_id: TicketId }),
  output: TicketOutput,
  handler(input, { state }) {
    const ticket = state.tickets.get(input.ticket_id);
    return ticket ? ticketView(ticket) : notFound(input.ticket_id);
  },
});

export const listTickets = defineTool({
  name: 'ticket.list',
  description:
    'List support tickets one bounded page at a time (at most 5 per call), optionally only those with a given status. ' +
    'To get the next page, pass back the next_cursor from the previous response; next_cursor is null on the last page.',
  input: z.strictObject({
    status: Status.optional().describe('Only tickets with this status; omit for all tickets.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(PAGE_LIMIT)
      .default(PAGE_LIMIT)
      .describe('How many tickets to return, 1 to 5 (default 5).'),
    cursor: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Opaque next_cursor from a previous ticket.list response with the same status filter; omit for the first page.',
      ),
  }),
  output: z.strictObject({
    tickets: z.array(z.strictObject({ id: z.string(), status: Status, subject: z.string() })).max(PAGE_LIMIT),
    next_cursor: z.string().nullable(),
  }),
  handler(input, { state }) {
    const matching = [...state.tickets.values()].filter(
      (ticket) => input.status === undefined || ticket.status === input.status,
    );
    const status = input.status ?? null;
    let start = 0;
    if (input.cursor !== undefined) {
      const offset = decodeCursor(input.cursor, status, matching.length);
      if (offset === null) {
        return fail(
          toolError(
            'invalid_cursor',
            'This cursor was not issued by ticket.list for this status filter. Start again without a cursor.',
            {
              cursor: input.cursor,
              status,
            },
          ),
        );
      }
      start = offset;
    }
    const page = matching.slice(start, start + input.limit);
    const next = start + page.length;
    return {
      tickets: page.map(({ id, status: ticketStatus, subject }) => ({ id, status: ticketStatus, subject })),
      next_cursor: next < matching.length ? encodeCursor(next, status) : null,
    };
  },
});

export const previewFollowup = defineTool({
  name: 'ticket.preview_followup',
  description:
    'Preview the exact follow-up note that would be added to a ticket, so the user can review it. ' +
    'Performs no write. To actually add it, call ticket.record_followup with the same ticket_id and note once the user approves.',
  input: z.strictObject({ ticket_id: TicketId, note: Note }),
  output: z.strictObject({
    ticket_id: z.string(),
    would_append: z.string(),
    followup_count_after: z.number().int(),
    side_effects: z.literal(0),
  }),
  handler(input, { state }) {
    const ticket = state.tickets.get(input.ticket_id);
    if (!ticket) return notFound(input.ticket_id);
    return {
      ticket_id: ticket.id,
      would_append: input.note,
      followup_count_after: ticket.followups.length + 1,
      side_effects: 0 as const,
    };
  },
});

export const recordFollowup = defineTool({
  name: 'ticket.record_followup',
  description:
    "Add one follow-up note to a support ticket. This writes: it needs the ticket:write permission and the user's approval of this exact " +
    'ticket and note (preview it first with ticket.preview_followup). Repeating a call with the same action_id never writes twice.',
  input: z.strictObject({
    ticket_id: TicketId,
    note: Note,
    action_id: z
      .string()
      .min(6)
      .max(100)
      .describe(
        'A unique ID you choose for this one intended write (at least 6 characters). Reuse it only to retry the very same write.',
      ),
  }),
  output: z.strictObject({
    receipt_id: z.string(),
    ticket_id: z.string(),
    status: z.literal('recorded'),
    followup_count: z.number().int(),
  }),
  handler(input, { state, signal, recordEffect }) {
    const ticket = state.tickets.get(input.ticket_id);
    if (!ticket) return notFound(input.ticket_id);
    // Check, write and log in one synchronous stretch: nothing lands after a timeout.
    signal.throwIfAborted();
    appendFollowup(state, ticket, input.note, input.action_id);
    recordEffect({ action: 'ticket.record_followup', effect: 'write', target: ticket.id, change_id: input.action_id });
    return {
      receipt_id: `receipt-${input.action_id}`,
      ticket_id: ticket.id,
      status: 'recorded' as const,
      followup_count: ticket.followups.length,
    };
  },
});

export const lookupSlow = defineTool({
  name: 'ticket.lookup_slow',
  description:
    'Read one ticket through the slow backup dependency. Same answer as ticket.get but slower; use only when asked to use the backup lookup. ' +
    'It may time out after 500 ms with a retryable tool_timeout error.',
  input: z.strictObject({
    ticket_id: TicketId,
    simulated_latency_ms: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .optional()
      .describe('Test fixture: how long the dependency takes, in milliseconds (default 50).'),
  }),
  output: TicketOutput,
  runtime: { retry: { transient: true, max_attempts: 3 }, timeout_ms: 500 },
  async handler(input, { state, sleep }) {
    await sleep(input.simulated_latency_ms ?? SLOW_DEFAULT_LATENCY_MS);
    const ticket = state.tickets.get(input.ticket_id);
    return ticket ? ticketView(ticket) : notFound(input.ticket_id);
  },
});

export const narrowTools: ToolSpec<TicketState>[] = [
  getTicket,
  listTickets,
  previewFollowup,
  recordFollowup,
  lookupSlow,
];
