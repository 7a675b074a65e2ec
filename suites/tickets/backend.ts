/**
 * The tickets backend fixture: 25 support tickets T-101 … T-125, fresh per
 * trial, plus the log of follow-ups recorded during the trial.
 */

export type TicketStatus = 'open' | 'waiting';

export interface Ticket {
  id: string;
  status: TicketStatus;
  subject: string;
  followups: string[];
}

export interface TicketState {
  tickets: Map<string, Ticket>;
  /** Follow-ups written in this trial, in order (the `followups` views read it). */
  recorded: { ticket_id: string; note: string; change_id: string | null }[];
}

export const FIRST_TICKET = 101;
export const LAST_TICKET = 125;

/** A fresh backend: every ticket open unless its number is a multiple of 3 (then waiting). */
export function createTicketState(): TicketState {
  const tickets = new Map<string, Ticket>();
  for (let number = FIRST_TICKET; number <= LAST_TICKET; number += 1) {
    const id = `T-${number}`;
    tickets.set(id, {
      id,
      status: number % 3 === 0 ? 'waiting' : 'open',
      subject: `Support request ${number}`,
      followups: [],
    });
  }
  return { tickets, recorded: [] };
}

/** A copy safe to hand out (the model must not hold references into the state). */
export function ticketView(ticket: Ticket): Ticket {
  return { id: ticket.id, status: ticket.status, subject: ticket.subject, followups: [...ticket.followups] };
}

/** Append a follow-up and log it. Callers check their abort signal first. */
export function appendFollowup(state: TicketState, ticket: Ticket, note: string, changeId: string | null): void {
  ticket.followups.push(note);
  state.recorded.push({ ticket_id: ticket.id, note, change_id: changeId });
}

const CURSOR_PREFIX = 'c1_';

/** An opaque page cursor: where the next page starts, under which status filter. */
export function encodeCursor(offset: number, status: TicketStatus | null): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify({ o: offset, s: status }), 'utf8').toString('base64url');
}

/** The position a cursor names, or null when it is not one this backend issued for this filter. */
export function decodeCursor(cursor: string, status: TicketStatus | null, total: number): number | null {
  if (!cursor.startsWith(CURSOR_PREFIX)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof decoded !== 'object' || decoded === null) return null;
  const { o: offset, s: cursorStatus } = decoded as { o?: unknown; s?: unknown };
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset <= 0 || offset >= total) return null;
  if ((cursorStatus ?? null) !== status) return null;
  return offset;
}
