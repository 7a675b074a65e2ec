/** One normalised request used by every adapter test: system prompt, history with parallel calls, an error result, a dotted and a plain tool. */
import { ModelRequest } from '../../src/spec/model.ts';

export const TICKET_GET_SCHEMA = {
  type: 'object',
  properties: { ticket_id: { type: 'string' } },
  required: ['ticket_id'],
  additionalProperties: false,
};

export const TICKET_LIST_SCHEMA = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['open', 'waiting'] }, limit: { type: 'integer' } },
};

export const SYSTEM_PROMPT = 'You are a support agent. Use the tools.';

/** `ticket.get` needs encoding (dot) and is strict; `ticket_list` is already legal and not strict. */
export function sampleRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return ModelRequest.parse({
    model: 'test-model',
    system: SYSTEM_PROMPT,
    messages: [
      { role: 'user', content: 'What is the status of T-102, and which tickets are open?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', name: 'ticket.get', arguments: '{"ticket_id":"T-102"}' },
          { id: 'call_2', name: 'ticket_list', arguments: '{"status":"open"}' },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', name: 'ticket.get', content: '{"id":"T-102","status":"open"}' },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        name: 'ticket_list',
        content: '{"error":{"code":"invalid_cursor"}}',
        is_error: true,
      },
    ],
    tools: [
      { name: 'ticket.get', description: 'Get one ticket by id.', parameters: TICKET_GET_SCHEMA, strict: true },
      { name: 'ticket_list', description: 'List tickets.', parameters: TICKET_LIST_SCHEMA, strict: false },
    ],
    tool_choice: 'auto',
    settings: { max_tokens: 256 },
    ...overrides,
  });
}

/** The smallest request: one user message, no tools. */
export function plainRequest(): ModelRequest {
  return ModelRequest.parse({
    model: 'test-model',
    system: null,
    messages: [{ role: 'user', content: 'Hello' }],
    tools: [],
  });
}

/** Fast retry settings for tests: tiny backoffs, no jitter. */
export const FAST_RETRY = { initialDelayMs: 1, maxDelayMs: 4, jitter: 0 } as const;
