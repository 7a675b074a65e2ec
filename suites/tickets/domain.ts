import { defineDomain, type ActionSpec } from 'toolmark';
import { createTicketState, type TicketState } from './backend.ts';
import { TICKET_ERRORS } from './errors.ts';
import { narrowTools } from './narrow-tools.ts';
import { ticketOperation } from './wide-tool.ts';

/** The actions, each with its runtime contract: declared here once, enforced by the tool of the same name. */
const actions: ActionSpec[] = [
  {
    id: 'ticket.get',
    description: 'Read one ticket by ID.',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.list',
    description: 'List tickets, one bounded page at a time.',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.preview_followup',
    description: 'Preview a follow-up note without writing it.',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.record_followup',
    description: 'Add a follow-up note to a ticket.',
    effect: 'write',
    permission: 'ticket:write',
    approval: 'required',
    idempotency_key: 'action_id',
    preview: 'ticket.preview_followup',
  },
  {
    id: 'ticket.lookup_slow',
    description: 'Read one ticket through the slow backup dependency.',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
];

/**
 * The shipped example domain (SPEC §8): the reference lab's ticket backend,
 * five narrow tools (one per action) and the contract-less wide tool
 * `ticket.operation`.
 */
export default defineDomain<TicketState>({
  name: 'tickets',
  description: 'Support tickets T-101 … T-125 with follow-up notes.',
  actions,
  tools: [...narrowTools, ticketOperation],
  errors: TICKET_ERRORS,
  createState: createTicketState,
  views: {
    followup_count: (state) => state.recorded.length,
    followups: (state) => {
      const byTicket: Record<string, string[]> = {};
      for (const entry of state.recorded) (byTicket[entry.ticket_id] ??= []).push(entry.note);
      return byTicket;
    },
  },
});
