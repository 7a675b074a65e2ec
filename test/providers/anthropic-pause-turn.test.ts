/**
 * `stop_reason: "pause_turn"` (issue 19): a server-side tool loop (tool
 * search) paused; the adapter sends the assistant content back unchanged
 * and the API continues the turn. Through the real SDK against a local
 * server speaking the Messages wire format.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { createAnthropicProvider } from '../../providers/anthropic/index.ts';
import { createUntilSettled } from '../../providers/anthropic/pause-turn.ts';
import { ModelRequest } from '../../src/spec/model.ts';
import { SENTINEL_KEY, fakeServerPerTest, sequence } from './fake-server.ts';
import { FAST_RETRY } from './sample-request.ts';

const startServer = fakeServerPerTest();

const SEARCH_BLOCKS = [
  {
    type: 'server_tool_use',
    id: 'srvtoolu_p1',
    name: 'tool_search_tool_bm25',
    input: { query: 'invoice amount' },
  },
  {
    type: 'tool_search_tool_result',
    tool_use_id: 'srvtoolu_p1',
    content: {
      type: 'tool_search_tool_search_result',
      tool_references: [{ type: 'tool_reference', tool_name: 'billing__invoice__get' }],
    },
  },
];

function message(content: unknown[], stopReason: string, usage: { input_tokens: number; output_tokens: number }) {
  return {
    id: `msg_${stopReason}`,
    type: 'message',
    role: 'assistant',
    model: 'test-model',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}

const paused = message(SEARCH_BLOCKS, 'pause_turn', { input_tokens: 300, output_tokens: 9 });
const resumed = message(
  [{ type: 'tool_use', id: 'toolu_p2', name: 'billing__invoice__get', input: { invoice_id: 'INV-1003' } }],
  'tool_use',
  { input_tokens: 340, output_tokens: 21 },
);

const request = () =>
  ModelRequest.parse({
    model: 'test-model',
    messages: [{ role: 'user', content: 'How much was INV-1003?' }],
    tools: [
      {
        name: 'billing.invoice.get',
        description: 'Read one invoice.',
        parameters: { type: 'object', properties: { invoice_id: { type: 'string' } } },
        defer_loading: true,
      },
    ],
    tool_search: { anthropic: 'bm25' },
  });

describe('anthropic adapter: pause_turn', () => {
  it('continues a paused turn with its content unchanged, keeps the server tool blocks, sums usage', async () => {
    const server = await startServer(sequence({ body: paused }, { body: resumed }));
    const provider = createAnthropicProvider({
      model: 'test-model',
      apiKey: SENTINEL_KEY,
      baseURL: server.url,
      retry: FAST_RETRY,
    });
    const turn = await provider.propose(request());

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((sent) => sent.body);
    // The continuation is the same request plus the paused assistant content, block for block.
    expect(second.messages.slice(0, -1)).toEqual(first.messages);
    expect(second.messages.at(-1)).toEqual({ role: 'assistant', content: SEARCH_BLOCKS });
    expect(second.tools).toEqual(first.tools);

    expect(turn.tool_searches).toEqual([
      { id: 'srvtoolu_p1', arguments: '{"query":"invoice amount"}', results: ['billing.invoice.get'] },
    ]);
    expect(turn.tool_calls).toEqual([
      { id: 'toolu_p2', name: 'billing.invoice.get', arguments: '{"invoice_id":"INV-1003"}' },
    ]);
    // 300 + 340 and 9 + 21: both requests were paid for.
    expect(turn.usage).toEqual({ input_tokens: 640, output_tokens: 30 });
    expect(turn.finish_reason).toBe('tool_calls');
    expect(turn.warnings).toEqual([]);
  });

  it('stops after the bound with a warning, scoring the turn as it stands', async () => {
    const server = await startServer(sequence({ body: paused }));
    const provider = createAnthropicProvider({
      model: 'test-model',
      apiKey: SENTINEL_KEY,
      baseURL: server.url,
      retry: FAST_RETRY,
      pauseContinuations: 2,
    });
    const turn = await provider.propose(request());
    // The first request and two continuations, each carrying everything paused so far.
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.body.messages.at(-1).content).toHaveLength(SEARCH_BLOCKS.length * 2);
    expect(turn.tool_calls).toEqual([]);
    expect(turn.tool_searches).toHaveLength(3);
    expect(turn.usage).toEqual({ input_tokens: 900, output_tokens: 27 });
    expect(turn.finish_reason).toBe('pause_turn');
    expect(turn.warnings).toEqual([
      'the server tool loop still paused after 2 continuations (stop_reason pause_turn); the turn is scored as it stands',
    ]);
  });

  it('sums the latency of every request of the turn and keeps every retry note', async () => {
    const answers = [paused, resumed] as unknown as Message[];
    const latencies = [120, 45];
    const retries = [[{ attempt: 1, failure: 'HTTP 529', waitedMs: 4 }], []];
    let index = 0;
    const settled = await createUntilSettled(
      { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
      async () => {
        const at = index++;
        return { value: answers[at]!, latencyMs: latencies[at]!, retries: retries[at]! };
      },
      () => undefined,
    );
    expect(index).toBe(2);
    expect(settled.latencyMs).toBe(165);
    expect(settled.retries).toEqual([{ attempt: 1, failure: 'HTTP 529', waitedMs: 4 }]);
    expect(settled.message.content.map((block) => block.type)).toEqual([
      'server_tool_use',
      'tool_search_tool_result',
      'tool_use',
    ]);
  });
});
