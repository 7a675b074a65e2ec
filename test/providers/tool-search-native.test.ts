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
import { schemaCost } from '../../src/cost/schema-cost.ts';
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

const surfaceOf = (id: string) => project.domains[0]!.surfaces.find((candidate) => candidate.id === id)!;
const definition = (name: string) => surfaceOf('namespaced').payload.find((tool) => tool.name === name)!;
const tokens = (payload: unknown) => schemaCost(payload).tokens;

async function trialOn(provider: Provider, surface = surfaceOf('namespaced-deferred')): Promise<TrialRecord> {
  const billing = project.domains[0]!;
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

    // Nothing deferred is in the context up front: the initial schema is customer search alone,
    // and each found tool adds its whole definition.
    const initial = tokens([definition('billing.customer.search')]);
    const loaded = ['billing.invoice.get', 'billing.invoice.list'].map((name) => tokens(definition(name)));
    expect(record.loading?.initial_schema_tokens).toBe(initial);
    expect(record.loading?.loaded.map((entry) => entry.tokens)).toEqual(loaded);
    expect(record.loading?.turn_schema_tokens).toEqual([initial, initial + loaded[0]! + loaded[1]!]);
  });
});

const openaiAnswer = {
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

async function openaiProvider(fixture: string) {
  const server = await startServer(
    sequence({ body: wireFixture('openai-responses', fixture) }, { body: openaiAnswer }),
  );
  const provider = createOpenAIProvider({
    model: 'test-model',
    apiKey: SENTINEL_KEY,
    baseURL: server.url,
    api: 'responses',
    retry: FAST_RETRY,
  });
  return { server, provider };
}

describe('native tool search: OpenAI Responses', () => {
  it('flat (search.openai: functions): tool_search and defer_loading on each function, hosted search re-sent statelessly', async () => {
    const { server, provider } = await openaiProvider('tool-search');
    const deferred = surfaceOf('namespaced-deferred');
    // The same surface with `search: { openai: functions }`: a new surface object, so its own request plan.
    const flat = { ...deferred, loading: { ...deferred.loading!, openai: 'functions' as const } };
    const record = await trialOn(provider, flat);

    const first = server.requests[0]!.body;
    expect(first.tools[0]).toEqual({ type: 'tool_search' });
    expect(first.tools.every((tool: any) => tool.type !== 'namespace')).toBe(true);
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

    // Up front the model sees customer search in full and every other tool by name and description;
    // loading invoice.get adds its schema less the name and description already shown.
    const stub = (name: string) => ({ name, description: definition(name).description });
    const initial = [
      stub('billing.invoice.get'),
      stub('billing.invoice.list'),
      stub('billing.invoice.lookup_archive'),
      stub('billing.customer.get'),
      definition('billing.customer.search'),
      stub('billing.refund.preview'),
      stub('billing.refund.submit'),
    ];
    const loaded = tokens(definition('billing.invoice.get')) - tokens(stub('billing.invoice.get'));
    expect(record.loading?.initial_schema_tokens).toBe(tokens(initial));
    expect(record.loading?.loaded).toEqual([{ turn: 0, tool: 'billing.invoice.get', tokens: loaded }]);
    expect(record.loading?.turn_schema_tokens).toEqual([tokens(initial), tokens(initial) + loaded]);
  });

  it('namespaces (the default for dotted names): one `billing` namespace, calls come back as {namespace, name}', async () => {
    const { server, provider } = await openaiProvider('tool-search-namespace');
    const record = await trialOn(provider);

    const first = server.requests[0]!.body;
    expect(first.tools.map((tool: any) => tool.type)).toEqual(['tool_search', 'namespace']);
    const namespace = first.tools[1];
    const description =
      'billing tools: invoice.get, invoice.list, invoice.lookup_archive, customer.get, customer.search, refund.preview, refund.submit';
    expect(namespace).toMatchObject({ name: 'billing', description });
    expect(namespace.defer_loading).toBeUndefined();
    expect(namespace.tools.map((tool: any) => [tool.type, tool.name, tool.defer_loading ?? false])).toEqual([
      ['function', 'invoice__get', true],
      ['function', 'invoice__list', true],
      ['function', 'invoice__lookup_archive', true],
      ['function', 'customer__get', true],
      ['function', 'customer__search', false],
      ['function', 'refund__preview', true],
      ['function', 'refund__submit', true],
    ]);

    // The call named {namespace: billing, name: invoice__get} is the exposed tool billing.invoice.get.
    expect(record.calls.map((call) => call.proposal.name)).toEqual(['billing.invoice.get']);
    expect(record.loading?.searches[0]?.results.map((hit) => hit.tool)).toEqual([
      'billing.invoice.get',
      'billing.invoice.lookup_archive',
    ]);
    expect(retrieval(record)).toMatchObject({ pass: true, actual: { rank: 1 } });
    expect(record.success).toBe(true);

    // The history re-sends the search output as a namespace and the call with its namespace.
    const input = server.requests[1]!.body.input;
    expect(input[2].tools).toEqual([
      {
        type: 'namespace',
        name: 'billing',
        description,
        tools: [
          expect.objectContaining({ name: 'invoice__get', strict: true }),
          expect.objectContaining({ name: 'invoice__lookup_archive', strict: true }),
        ],
      },
    ]);
    expect(input[2].tools[0].tools.every((tool: any) => tool.defer_loading === undefined)).toBe(true);
    expect(input[3]).toMatchObject({ type: 'function_call', namespace: 'billing', name: 'invoice__get' });

    // Up front: the namespace's name and description, and customer search (not deferred) in full.
    const initial = [{ name: 'billing', description }, definition('billing.customer.search')];
    const get = tokens(definition('billing.invoice.get'));
    const archive = tokens(definition('billing.invoice.lookup_archive'));
    expect(record.loading?.initial_schema_tokens).toBe(tokens(initial));
    expect(record.loading?.loaded).toEqual([
      { turn: 0, tool: 'billing.invoice.get', tokens: get },
      { turn: 0, tool: 'billing.invoice.lookup_archive', tokens: archive },
    ]);
    expect(record.loading?.turn_schema_tokens).toEqual([tokens(initial), tokens(initial) + get + archive]);
  });
});
