import { describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../providers/anthropic/index.ts';
import { ModelRequest } from '../../src/spec/model.ts';
import { SENTINEL_KEY, sequence, fakeServerPerTest, wireFixture } from './fake-server.ts';
import { FAST_RETRY, sampleRequest, SYSTEM_PROMPT, TICKET_GET_SCHEMA, TICKET_LIST_SCHEMA } from './sample-request.ts';

const startServer = fakeServerPerTest();

async function withFixture(name: string) {
  const server = await startServer(sequence({ body: wireFixture('anthropic', name) }));
  const provider = createAnthropicProvider({
    model: 'test-model',
    apiKey: SENTINEL_KEY,
    baseURL: server.url,
    retry: FAST_RETRY,
  });
  return { server, provider };
}

describe('anthropic adapter: request on the wire', () => {
  it('sends system, tool_use history, merged tool_result blocks with is_error, and input_schema tools', async () => {
    const { server, provider } = await withFixture('text');
    await provider.propose(sampleRequest());
    const [sent] = server.requests;
    expect(sent!.path).toBe('/v1/messages');
    // SDK 1.x sends the key as a bearer token; wherever it goes, never in the body (checked by the server).
    expect(sent!.headers.authorization ?? sent!.headers['x-api-key']).toContain(SENTINEL_KEY);
    const body = sent!.body;
    expect(body.system).toBe(SYSTEM_PROMPT);
    expect(body.max_tokens).toBe(256);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the status of T-102, and which tickets are open?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'ticket__get', input: { ticket_id: 'T-102' } },
          { type: 'tool_use', id: 'call_2', name: 'ticket_list', input: { status: 'open' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '{"id":"T-102","status":"open"}' },
          {
            type: 'tool_result',
            tool_use_id: 'call_2',
            content: '{"error":{"code":"invalid_cursor"}}',
            is_error: true,
          },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      { name: 'ticket__get', description: 'Get one ticket by id.', input_schema: TICKET_GET_SCHEMA, strict: true },
      { name: 'ticket_list', description: 'List tickets.', input_schema: TICKET_LIST_SCHEMA },
    ]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
  });

  it('maps tool_choice required → any and none → none; defaults max_tokens; warns on temperature and seed', async () => {
    const { server, provider } = await withFixture('text');
    const turn = await provider.propose(
      sampleRequest({ tool_choice: 'required', settings: { temperature: 0, seed: 3 } }),
    );
    await provider.propose(sampleRequest({ tool_choice: 'none' }));
    expect(server.requests[0]!.body.tool_choice).toEqual({ type: 'any' });
    expect(server.requests[0]!.body.max_tokens).toBe(4096);
    expect(server.requests[0]!.body).not.toHaveProperty('temperature');
    expect(server.requests[1]!.body.tool_choice).toEqual({ type: 'none' });
    expect(turn.warnings.join('\n')).toMatch(/temperature ignored[\s\S]*seed ignored/);
  });

  it('a history call whose arguments are not a JSON object is sent as {} with a warning', async () => {
    const { server, provider } = await withFixture('text');
    const request = ModelRequest.parse({
      ...sampleRequest(),
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'checking',
          tool_calls: [{ id: 'c1', name: 'ticket.get', arguments: '{"ticket_id": ' }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'ticket.get', content: 'invalid_arguments', is_error: true },
        { role: 'user', content: 'and now?' },
      ],
    });
    const turn = await provider.propose(request);
    const messages = server.requests[0]!.body.messages;
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'checking' },
        { type: 'tool_use', id: 'c1', name: 'ticket__get', input: {} },
      ],
    });
    // The user's follow-up joins the tool results: the API wants strict alternation.
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'invalid_arguments', is_error: true },
        { type: 'text', text: 'and now?' },
      ],
    });
    expect(messages).toHaveLength(3);
    expect(turn.warnings.join('\n')).toMatch(/c1 are not a JSON object/);
  });
});

describe('anthropic adapter: turn back from the wire', () => {
  it('plain text', async () => {
    const { provider } = await withFixture('text');
    const turn = await provider.propose(sampleRequest());
    expect(turn).toMatchObject({
      text: 'T-102 is open.',
      tool_calls: [],
      finish_reason: 'stop',
      usage: { input_tokens: 412, output_tokens: 18 },
    });
  });

  it('one tool call with text: input object serialised once, dotted name decoded', async () => {
    const { provider } = await withFixture('one-tool-call');
    const turn = await provider.propose(sampleRequest());
    expect(turn.text).toBe('Let me look that up.');
    expect(turn.tool_calls).toEqual([{ id: 'toolu_get_1', name: 'ticket.get', arguments: '{"ticket_id":"T-102"}' }]);
    expect(turn.finish_reason).toBe('tool_calls');
  });

  it('parallel tool calls keep order', async () => {
    const { provider } = await withFixture('parallel-tool-calls');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls).toEqual([
      { id: 'toolu_get_1', name: 'ticket.get', arguments: '{"ticket_id":"T-102"}' },
      { id: 'toolu_get_2', name: 'ticket.get', arguments: '{"ticket_id":"T-103"}' },
      { id: 'toolu_list_1', name: 'ticket_list', arguments: '{"status":"open","limit":5}' },
    ]);
  });

  it('a non-object input (malformed arguments from a compatible server) is kept, not repaired', async () => {
    const { provider } = await withFixture('malformed-arguments');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls[0]!.arguments).toBe(JSON.stringify('{"ticket_id": "T-102"'));
  });

  it('a tool name the model invents is kept as written', async () => {
    const { provider } = await withFixture('unknown-tool');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls[0]!.name).toBe('ticket__delete');
  });
});

describe('anthropic countSchemaTokens', () => {
  it('is count(with tools) − count(without), via the count-tokens endpoint', async () => {
    const server = await startServer((request) => ({
      body: wireFixture('anthropic', request.body?.tools ? 'count-tokens-with-tools' : 'count-tokens-without-tools'),
    }));
    const provider = createAnthropicProvider({
      model: 'test-model',
      apiKey: SENTINEL_KEY,
      baseURL: server.url,
      retry: FAST_RETRY,
    });
    const tokens = await provider.countSchemaTokens('claude-x', sampleRequest().tools);
    expect(tokens).toBe(734 - 8);
    expect(server.requests.map((request) => request.path).sort()).toEqual([
      '/v1/messages/count_tokens',
      '/v1/messages/count_tokens',
    ]);
    const withTools = server.requests.find((request) => request.body.tools)!;
    expect(withTools.body.model).toBe('claude-x');
    expect(withTools.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['ticket__get', 'ticket_list']);
  });

  it('is 0 for no tools without calling the API', async () => {
    const server = await startServer(sequence({ body: { input_tokens: 1 } }));
    const provider = createAnthropicProvider({ model: 'test-model', apiKey: SENTINEL_KEY, baseURL: server.url });
    expect(await provider.countSchemaTokens('claude-x', [])).toBe(0);
    expect(server.requests).toHaveLength(0);
  });
});
