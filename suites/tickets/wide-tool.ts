import { z } from 'zod';
import { defineToolFor, fail, toolError } from 'toolmark';
import { appendFollowup, ticketView, type TicketState } from './backend.ts';

/**
 * The contract-less baseline: one wide tool, an `operation` string and a free
 * `payload`. It checks no permission, asks no approval, keeps no receipts,
 * ignores payload fields it does not use, returns every ticket from `list`,
 * and reports every failure as a generic `tool_failed`. It exists so the
 * typed registry has something honest to be compared against.
 */

/** The slow dependency's own deadline inside the wide tool (it swallows the timeout). */
const DEPENDENCY_DEADLINE_MS = 500;
const SLOW_DEFAULT_LATENCY_MS = 50;

function generic(message = 'tool failed') {
  return fail(toolError('tool_failed', message));
}

export const ticketOperation = defineToolFor<TicketState>()({
  name: 'ticket.operation',
  description:
    'Read or change support tickets and run ticket queries. operation: get, list, preview, record or slow; payload: its arguments.',
  input: z.object({
    operation: z.string().describe('What to do.'),
    payload: z.record(z.string(), z.unknown()).optional().describe('Arguments for the operation.'),
  }),
  output: z.unknown(),
  // No action of its own, so the tool states its whole contract: none.
  runtime: { permission: null, effect: 'write', approval: 'never', idempotency_key: null },
  async handler(input, { state, signal, sleep, recordEffect }) {
    const payload = input.payload ?? {};
    const ticket = state.tickets.get(String(payload.ticket_id));
    switch (input.operation) {
      case 'get':
        return ticket ? ticketView(ticket) : generic();
      case 'list':
        // No paging: every ticket, whatever limit or cursor was asked for.
        return { tickets: [...state.tickets.values()].map(ticketView) };
      case 'preview':
        return ticket ? { ticket_id: ticket.id, note: String(payload.note ?? '') } : generic();
      case 'record': {
        if (!ticket) return generic();
        signal.throwIfAborted();
        const changeId = typeof payload.action_id === 'string' ? payload.action_id : null;
        appendFollowup(state, ticket, String(payload.note ?? ''), changeId);
        recordEffect({ action: 'ticket.record_followup', effect: 'write', target: ticket.id, change_id: changeId });
        return { status: 'done', ticket_id: ticket.id };
      }
      case 'slow': {
        const latency = Number(payload.simulated_latency_ms ?? SLOW_DEFAULT_LATENCY_MS);
        if (!(latency >= 0 && latency <= DEPENDENCY_DEADLINE_MS)) {
          await sleep(DEPENDENCY_DEADLINE_MS);
          return generic('request failed');
        }
        await sleep(latency);
        return ticket ? ticketView(ticket) : generic();
      }
      default:
        return generic();
    }
  },
});
