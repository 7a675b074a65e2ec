import { toolErrorFor, type ErrorTable } from 'toolmark';

/** The tickets domain's own error codes (framework codes such as `invalid_cursor` need no entry). */
export const TICKET_ERRORS = {
  ticket_not_found: {
    category: 'not_found',
    retryable: false,
    description: 'No ticket with this ID; ticket.list shows the existing ones.',
  },
} as const satisfies ErrorTable;

/** `toolError` for the tickets domain: its own codes and the framework's. */
export const toolError = toolErrorFor(TICKET_ERRORS);
