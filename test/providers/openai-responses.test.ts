import { describe, expect, it } from 'vitest';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import { SENTINEL_KEY, sequence, fakeServerPerTest, wireFixture } from './fake-server.ts';
import {
  FAST_RETRY,
  plainRequest,
  sampleRequest,
  SYSTEM_PROMPT,
  TICKET_GET_SCHEMA,
  TICKET_LIST_SCHEMA,
} from './sample-request.ts';

const startServer = fakeServerPerTest();

async function withFixture(name: string) {
  const server = await startServer(sequence({ body: wireFixture('openai-responses', name) }));
  const provider = createOpenAIProvider({
    model: 'test-model',
    api: 'responses',
    apiKey: SENTINEL_KEY,
    baseURL: `${server.url}/v1`,
    retry: FAST_RETRY,
  });
  return { server, provider };
}

describe('openai responses adapter: request on the wire', () => {
  it('sends instructions, function_call + function_call_output items and explicit strict flags', async () => {
    const { server, provider } = await withFixture('text');
    await provider.propose(sampleRequest({ settings: { max_tokens: 300, temperature: 0.2, seed: 1 } }));
    const [sent] = server.requests;
    expect(sent!.path).toBe('/v1/responses');
    const body = sent!.body;
    expect(body.instructions).toBe(SYSTEM_PROMPT);
    expect(body.store).toBe(false);
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: 'What is the status of T-102, and which tickets are open?' },
      { type: 'function_call', call_id: 'call_1', name: 'ticket__get', arguments: '{"ticket_id":"T-102"}' },
      { type: 'function_call', call_id: 'call_2', name: 'ticket_list', arguments: '{"status":"open"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"id":"T-102","status":"open"}' },
      { type: 'function_call_output', call_id: 'call_2', output: '{"error":{"code":"invalid_cursor"}}' },
    ]);
    // Responses treats a missing `strict` as true, so false must be sent explicitly.
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: 'ticket__get',
        description: 'Get one ticket by id.',
        parameters: TICKET_GET_SCHEMA,
        strict: true,
      },
      {
        type: 'function',
        name: 'ticket_list',
        description: 'List tickets.',
        parameters: TICKET_LIST_SCHEMA,
        strict: false,
      },
    ]);
    expect(body.tool_choice).toBe('auto');
    expect(body.max_output_tokens).toBe(300);
    expect(body.temperature).toBe(0.2);
    expect(body).not.toHaveProperty('seed');
  });

  it('warns that seed is not supported', async () => {
    const { provider } = await withFixture('text');
    const turn = await provider.propose(sampleRequest({ settings: { seed: 1 } }));
    expect(turn.warnings.join('\n')).toMatch(/no seed/);
  });

  it('sends assistant text as an assistant message and no tools when there are none', async () => {
    const { server, provider } = await withFixture('text');
    const request = plainRequest();
    request.messages.push({ role: 'assistant', content: 'Hi!', tool_calls: [] }, { role: 'user', content: 'Bye' });
    await provider.propose(request);
    const body = server.requests[0]!.body;
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: 'Hello' },
      { type: 'message', role: 'assistant', content: 'Hi!' },
      { type: 'message', role: 'user', content: 'Bye' },
    ]);
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('instructions');
  });
});

describe('openai responses adapter: turn back from the wire', () => {
  it('plain text', async () => {
    const { provider } = await withFixture('text');
    const turn = await provider.propose(sampleRequest());
    expect(turn.text).toBe('T-102 is open.');
    expect(turn.tool_calls).toEqual([]);
    expect(turn.finish_reason).toBe('stop');
    expect(turn.usage).toEqual({ input_tokens: 291, output_tokens: 23 });
  });

  it('one tool call: call_id is the proposal id, reasoning items are skipped, dotted name decoded', async () => {
    const { provider } = await withFixture('one-tool-call');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls).toEqual([{ id: 'call_get_1', name: 'ticket.get', arguments: '{"ticket_id":"T-102"}' }]);
    expect(turn.finish_reason).toBe('tool_calls');
    expect(turn.warnings).toEqual([]);
  });

  it('parallel tool calls keep order and raw text', async () => {
    const { provider } = await withFixture('parallel-tool-calls');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls).toEqual([
      { id: 'call_get_1', name: 'ticket.get', arguments: '{"ticket_id":"T-102"}' },
      { id: 'call_get_2', name: 'ticket.get', arguments: '{ "ticket_id" : "T-103" }' },
      { id: 'call_list_1', name: 'ticket_list', arguments: '{"status":"open","limit":5}' },
    ]);
  });

  it('malformed arguments are kept as the raw string', async () => {
    const { provider } = await withFixture('malformed-arguments');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls[0]!.arguments).toBe('{"ticket_id": "T-102"');
  });

  it('a tool name the model invents is kept as written', async () => {
    const { provider } = await withFixture('unknown-tool');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls[0]!.name).toBe('ticket__delete');
  });

  it('an incomplete response reports length and a warning', async () => {
    const { provider } = await withFixture('incomplete');
    const turn = await provider.propose(sampleRequest());
    expect(turn.text).toBe('T-102 is');
    expect(turn.finish_reason).toBe('length');
    expect(turn.warnings.join('\n')).toMatch(/incomplete: max_output_tokens/);
  });
});

describe('openai responses adapter: namespaces', () => {
  it('a call to a function no namespace holds keeps its namespace, as written, both ways', async () => {
    const { server, provider } = await withFixture('tool-search-namespace');
    const deferred = { description: 'Read one invoice.', parameters: TICKET_GET_SCHEMA, defer_loading: true };
    const turn = await provider.propose(
      sampleRequest({
        messages: [
          { role: 'user', content: 'Refund INV-1003' },
          // An earlier call the model made up inside the namespace, then its error result.
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_0', name: 'billing.refund_now', arguments: '{}' }],
          },
          {
            role: 'tool',
            tool_call_id: 'call_0',
            name: 'billing.refund_now',
            content: '{"code":"tool_not_found"}',
            is_error: true,
          },
        ],
        tools: [
          { name: 'billing.invoice.get', strict: true, ...deferred },
          { name: 'lookup', strict: false, ...deferred },
        ],
        tool_search: { openai: 'namespaces', namespaces: [{ name: 'billing', description: 'Billing.' }] },
      }),
    );
    const body = server.requests[0]!.body;
    expect(body.tools.map((tool: any) => [tool.type, tool.name])).toEqual([
      ['tool_search', undefined],
      ['namespace', 'billing'],
      ['function', 'lookup'],
    ]);
    expect(body.tools[1].tools.map((tool: any) => tool.name)).toEqual(['invoice__get']);
    expect(body.input[1]).toMatchObject({ type: 'function_call', namespace: 'billing', name: 'refund_now' });
    // The fixture's call {namespace: billing, name: invoice__get} is the request's billing.invoice.get.
    expect(turn.tool_calls.map((call) => call.name)).toEqual(['billing.invoice.get']);
  });
});
