import { describe, expect, it } from 'vitest';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import { SENTINEL_KEY, sequence, fakeServerPerTest, wireFixture } from './fake-server.ts';
import { FAST_RETRY, plainRequest, sampleRequest, SYSTEM_PROMPT, TICKET_GET_SCHEMA } from './sample-request.ts';

const startServer = fakeServerPerTest();

async function withFixture(name: string) {
  const server = await startServer(sequence({ body: wireFixture('openai-chat', name) }));
  const provider = createOpenAIProvider({
    model: 'test-model',
    api: 'chat',
    apiKey: SENTINEL_KEY,
    baseURL: `${server.url}/v1`,
    retry: FAST_RETRY,
  });
  return { server, provider };
}

describe('openai chat adapter: request on the wire', () => {
  it('sends system prompt, history, tool results and the tools payload in Chat shape', async () => {
    const { server, provider } = await withFixture('text');
    await provider.propose(sampleRequest());
    const [sent] = server.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe(`Bearer ${SENTINEL_KEY}`);
    const body = sent!.body;
    expect(body.model).toBe('test-model');
    expect(body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'What is the status of T-102, and which tickets are open?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'ticket__get', arguments: '{"ticket_id":"T-102"}' } },
          { id: 'call_2', type: 'function', function: { name: 'ticket_list', arguments: '{"status":"open"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"id":"T-102","status":"open"}' },
      { role: 'tool', tool_call_id: 'call_2', content: '{"error":{"code":"invalid_cursor"}}' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'ticket__get',
          description: 'Get one ticket by id.',
          parameters: TICKET_GET_SCHEMA,
          strict: true,
        },
      },
      {
        type: 'function',
        function: { name: 'ticket_list', description: 'List tickets.', parameters: expect.any(Object) },
      },
    ]);
    expect(body.tools[1].function).not.toHaveProperty('strict');
    expect(body.tool_choice).toBe('auto');
    expect(body.max_tokens).toBe(256);
  });

  it('uses max_completion_tokens for api.openai.com-style servers when asked, and sends seed and temperature', async () => {
    const server = await startServer(sequence({ body: wireFixture('openai-chat', 'text') }));
    const provider = createOpenAIProvider({
      model: 'm',
      api: 'chat',
      apiKey: SENTINEL_KEY,
      baseURL: `${server.url}/v1`,
      maxTokensField: 'max_completion_tokens',
    });
    await provider.propose(
      sampleRequest({ settings: { max_tokens: 100, temperature: 0, seed: 7 }, tool_choice: 'required' }),
    );
    const body = server.requests[0]!.body;
    expect(body.max_completion_tokens).toBe(100);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.temperature).toBe(0);
    expect(body.seed).toBe(7);
    expect(body.tool_choice).toBe('required');
  });

  it('omits tools and tool_choice when the request has no tools', async () => {
    const { server, provider } = await withFixture('text');
    await provider.propose(plainRequest());
    const body = server.requests[0]!.body;
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body.messages).toEqual([{ role: 'user', content: 'Hello' }]);
  });
});

describe('openai chat adapter: turn back from the wire', () => {
  it('plain text', async () => {
    const { provider } = await withFixture('text');
    const turn = await provider.propose(sampleRequest());
    expect(turn.text).toBe('T-102 is open.');
    expect(turn.tool_calls).toEqual([]);
    expect(turn.finish_reason).toBe('stop');
    expect(turn.usage).toEqual({ input_tokens: 412, output_tokens: 18 });
    expect(turn.latency_ms).toBeGreaterThanOrEqual(0);
    expect(turn.warnings).toEqual([]);
  });

  it('one tool call: a dotted name is encoded on the wire and decoded back', async () => {
    const { provider } = await withFixture('one-tool-call');
    const turn = await provider.propose(sampleRequest());
    expect(turn.text).toBeNull();
    expect(turn.tool_calls).toEqual([{ id: 'call_get_1', name: 'ticket.get', arguments: '{"ticket_id":"T-102"}' }]);
    expect(turn.finish_reason).toBe('tool_calls');
  });

  it('parallel tool calls keep order, ids and raw argument text byte for byte', async () => {
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
    expect(turn.tool_calls).toEqual([{ id: 'call_bad_1', name: 'ticket.get', arguments: '{"ticket_id": "T-102"' }]);
  });

  it('empty and non-object arguments are kept as written', async () => {
    const fixture = structuredClone(wireFixture('openai-chat', 'parallel-tool-calls')) as any;
    fixture.choices[0].message.tool_calls[0].function.arguments = '';
    fixture.choices[0].message.tool_calls[1].function.arguments = '["T-103"]';
    const server = await startServer(sequence({ body: fixture }));
    const provider = createOpenAIProvider({
      model: 'm',
      api: 'chat',
      apiKey: SENTINEL_KEY,
      baseURL: `${server.url}/v1`,
    });
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls.map((call) => call.arguments)).toEqual(['', '["T-103"]', '{"status":"open","limit":5}']);
  });

  it('a tool name the model invents is kept as written', async () => {
    const { provider } = await withFixture('unknown-tool');
    const turn = await provider.propose(sampleRequest());
    expect(turn.tool_calls.map((call) => call.name)).toEqual(['ticket__delete']);
  });

  it('missing usage is a warning, not a failure', async () => {
    const { provider } = await withFixture('no-usage');
    const turn = await provider.propose(plainRequest());
    expect(turn.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(turn.warnings.join('\n')).toMatch(/no usage/);
  });
});
