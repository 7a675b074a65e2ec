/**
 * Deferred loading sent natively (issue 19): a whole trial on the example's
 * deferred surface, through the real SDKs, against a local server that
 * speaks each API's tool search wire format. The first request carries the
 * search tool and `defer_loading` on every tool but the always-loaded one;
 * the server's search comes back on the turn, is recorded as a retrieval,
 * and is re-sent in the history of the next request.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../providers/anthropic/index.ts';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import { loadProject } from '../../src/load/index.ts';
import { scoreTrial } from '../../src/score/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import type { Provider, TrialRecord } from '../../src/spec/index.ts';
import { SENTINEL_KEY, fakeServerPerTest, sequence, wireFixture } from './fake-server.ts';
import { FAST_RETRY } from './sample-request.ts';

const ROOT = fileURLToPath(new URL('../../examples/deferred/', import.meta.url));
const startServer = fakeServerPerTest();
let project: Awaited<ReturnType<typeof loadProject>>;
beforeAll(async () => {
  project = await loadProject(ROOT);
});

async function trialOn(provider: Provider): Promise<TrialRecord> {
  const billing = project.domains[0]!;
  const surface = billing.surfaces.find((candidate) => candidate.id === 'namespaced-deferred')!;
  const task = billing.tasks.find((candidate) => candidate.id === 'deferred-amount-inv1003')!;
  const record = await runTrial({ provider, domain: billing.domain, surface, task, trial: 0 });
  return scoreTrial(record, task, billing.domain.actions);
}

const retrieval = (record: TrialRecord) => record.verdicts.find((verdict) => verdict.grader === 'retrieval');

describe('native tool search: Anthropic Messages', () => {
  it('sends the bm25 search tool and defer_loading, records the search, re-sends its blocks', async () => {
    const answer = {
      id: 'msg_ts_02',
      type: 'message',
      role: 'assistant',
      model: 'test-model',
      content: [{ type: 'text', text: 'INV-1003 was for $47.50.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 600, output_tokens: 12 },
    };
    const server = await startServer(sequence({ body: wireFixture('anthropic', 'tool-search') }, { body: answer }));
    const provider = createAnthropicProvider({
      model: 'test-model',
      apiKey: SENTINEL_KEY,
      baseURL: server.url,
      retry: FAST_RETRY,
    });
    const record = await trialOn(provider);

    const first = server.requests[0]!.body;
    expect(first.tools[0]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    const deferredFlags = Object.fromEntries(
      first.tools.slice(1).map((tool: any) => [tool.name, tool.defer_loading ?? false]),
    );
    expect(deferredFlags).toEqual({
      billing__invoice__get: true,
      billing__invoice__list: true,
      billing__invoice__lookup_archive: true,
      billing__customer__get: true,
      billing__customer__search: false,
      billing__refund__preview: true,
      billing__refund__submit: true,
    });
    // The second request re-sends the search and its tool references before the call that used them.
    const assistant = server.requests[1]!.body.messages[1];
    expect(assistant.content.map((block: any) => block.type)).toEqual([
      'server_tool_use',
      'tool_search_tool_result',
      'tool_use',
    ]);
    expect(assistant.content[1].content.tool_references).toEqual([
      { type: 'tool_reference', tool_name: 'billing__invoice__get' },
      { type: 'tool_reference', tool_name: 'billing__invoice__list' },
    ]);

    expect(record.loading?.via).toBe('native');
    expect(record.loading?.searches).toEqual([
      {
        turn: 0,
        id: 'srvtoolu_01',
        arguments: '{"query":"invoice amount"}',
        results: [
          { tool: 'billing.invoice.get', actions: ['billing.invoice.get'] },
          { tool: 'billing.invoice.list', actions: ['billing.invoice.list'] },
        ],
        error: null,
      },
    ]);
    expect(record.loading?.loaded.map((entry) => entry.tool)).toEqual(['billing.invoice.get', 'billing.invoice.list']);
    expect(record.calls.map((call) => call.proposal.name)).toEqual(['billing.invoice.get']);
    expect(retrieval(record)).toMatchObject({ pass: true, actual: { rank: 1, searches: 1 } });
    expect(record.success).toBe(true);
  });
});

describe('native tool search: OpenAI Responses', () => {
  it('sends tool_search and defer_loading, records the hosted search, re-sends its items statelessly', async () => {
    const answer = {
      id: 'resp_ts_02',
      object: 'response',
      created_at: 1764633601,
      status: 'completed',
      model: 'test-model',
      output: [
        {
          type: 'message',
          id: 'msg_02',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'INV-1003 was for $47.50.', annotations: [] }],
        },
      ],
      usage: { input_tokens: 520, output_tokens: 10, total_tokens: 530 },
    };
    const server = await startServer(
      sequence({ body: wireFixture('openai-responses', 'tool-search') }, { body: answer }),
    );
    const provider = createOpenAIProvider({
      model: 'test-model',
      apiKey: SENTINEL_KEY,
      baseURL: server.url,
      api: 'responses',
      retry: FAST_RETRY,
    });
    const record = await trialOn(provider);

    const first = server.requests[0]!.body;
    expect(first.tools[0]).toEqual({ type: 'tool_search' });
    const search = first.tools.find((tool: any) => tool.name === 'billing__customer__search');
    const get = first.tools.find((tool: any) => tool.name === 'billing__invoice__get');
    expect(search.defer_loading).toBeUndefined();
    expect(get.defer_loading).toBe(true);

    const input = server.requests[1]!.body.input;
    expect(input.map((item: any) => item.type)).toEqual([
      'message',
      'tool_search_call',
      'tool_search_output',
      'function_call',
      'function_call_output',
    ]);
    expect(input[1]).toMatchObject({
      call_id: 'call_ts_01',
      execution: 'server',
      arguments: { paths: ['billing__invoice__get'] },
    });
    expect(input[2].tools.map((tool: any) => [tool.name, tool.defer_loading])).toEqual([
      ['billing__invoice__get', undefined],
    ]);

    expect(record.loading?.via).toBe('native');
    expect(record.loading?.searches[0]?.results).toEqual([
      { tool: 'billing.invoice.get', actions: ['billing.invoice.get'] },
    ]);
    expect(retrieval(record)).toMatchObject({ pass: true, actual: { rank: 1 } });
    expect(record.success).toBe(true);
  });
});
