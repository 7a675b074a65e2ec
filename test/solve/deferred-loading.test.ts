/**
 * Emulated deferred loading (issue 19): the `search_tools` meta-tool on the
 * example's deferred surface, through the trial loop, the graders, the
 * summary and the reports.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { loadProject } from '../../src/load/index.ts';
import { runProject } from '../../src/run/index.ts';
import { scoreTrial, trialFacts } from '../../src/score/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import { searchTools } from '../../src/solve/tool-search.ts';
import type { Summary, TrialRecord } from '../../src/spec/index.ts';

const ROOT = fileURLToPath(new URL('../../examples/deferred/', import.meta.url));
let project: Awaited<ReturnType<typeof loadProject>>;
let out: string;
beforeAll(async () => {
  project = await loadProject(ROOT);
  out = await mkdtemp(join(tmpdir(), 'toolmark-deferred-'));
});
afterAll(() => rm(out, { recursive: true, force: true }));

async function trial(taskId: string, provider: ScriptedProvider): Promise<TrialRecord> {
  const billing = project.domains[0]!;
  const surface = billing.surfaces.find((candidate) => candidate.id === 'namespaced-deferred')!;
  const task = billing.tasks.find((candidate) => candidate.id === taskId)!;
  return scoreTrial(
    await runTrial({ provider, domain: billing.domain, surface, task, trial: 0 }),
    task,
    billing.domain.actions,
  );
}

const toolNames = (provider: ScriptedProvider, index: number) =>
  provider.requests[index]!.request.tools.map((tool) => tool.name);

describe('emulated search_tools', () => {
  it('starts with the always-loaded tools and search_tools; found tools join the following request', async () => {
    const provider = new ScriptedProvider([
      callTurn('search_tools', { query: 'old invoice from 2023' }, 's1'),
      callTurn('billing.invoice.lookup_archive', { invoice_id: 'INV-0904' }),
      textTurn('INV-0904 is in the archive.'),
    ]);
    const record = await trial('deferred-archive-inv0904', provider);
    expect(toolNames(provider, 0)).toEqual(['billing.customer.search', 'search_tools']);
    // BM25 top 3 for the query, in rank order, appended after what the model already saw.
    expect(toolNames(provider, 1)).toEqual([
      'billing.customer.search',
      'search_tools',
      'billing.invoice.list',
      'billing.invoice.lookup_archive',
      'billing.invoice.get',
    ]);
    // The search's result reaches the model as a tool result naming the found tools.
    const result = provider.requests[1]!.request.messages.at(-1)!;
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 's1', is_error: false });
    expect(
      JSON.parse((result as { content: string }).content).tools.map((tool: { name: string }) => tool.name),
    ).toEqual(['billing.invoice.list', 'billing.invoice.lookup_archive', 'billing.invoice.get']);
    // Not a domain call: absent from calls, so never a wrong tool; the selection is the first real call.
    expect(record.calls.map((call) => call.proposal.name)).toEqual(['billing.invoice.lookup_archive']);
    expect(record.verdicts.find((verdict) => verdict.grader === 'action')?.pass).toBe(true);
    expect(record.verdicts.find((verdict) => verdict.grader === 'retrieval')).toMatchObject({
      pass: true,
      expected: { actions: ['billing.invoice.lookup_archive'], top_k: 3 },
      actual: { searches: 1, rank: 2, search: 0 },
    });
    // Schema tokens: the initial request; per turn, what each request carried; each loaded tool once.
    const loading = record.loading!;
    expect(loading.via).toBe('emulated');
    expect(record.schema_tokens).toBe(loading.initial_schema_tokens);
    expect(loading.turn_schema_tokens).toHaveLength(3);
    expect(loading.turn_schema_tokens[0]).toBe(loading.initial_schema_tokens);
    expect(loading.turn_schema_tokens[1]).toBeGreaterThan(loading.turn_schema_tokens[0]!);
    expect(loading.turn_schema_tokens[2]).toBe(loading.turn_schema_tokens[1]);
    expect(loading.loaded.map((entry) => [entry.turn, entry.tool])).toEqual([
      [0, 'billing.invoice.list'],
      [0, 'billing.invoice.lookup_archive'],
      [0, 'billing.invoice.get'],
    ]);
    // The three loaded tools alone cost about what the second request added (array brackets and commas aside).
    const added = loading.turn_schema_tokens[1]! - loading.turn_schema_tokens[0]!;
    const loadedSum = loading.loaded.reduce((sum, entry) => sum + entry.tokens, 0);
    expect(Math.abs(added - loadedSum)).toBeLessThanOrEqual(3);
  });

  it('indexes distractors too: one found and called is a wrong selection, and a search result', async () => {
    const billing = project.domains[0]!;
    const base = billing.surfaces.find((candidate) => candidate.id === 'namespaced-deferred')!;
    // A distractor no action maps to. "weather" and "forecast" occur in no billing tool's text,
    // so BM25 scores every other tool 0 for the query: the distractor is the only (top) hit.
    const distractor = {
      name: 'weather.forecast.get',
      description: 'Get the weather forecast for a city.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' } },
        required: ['city'],
        additionalProperties: false,
      },
      strict: base.strict,
    };
    const surface = { ...base, payload: [...base.payload, distractor], distractors: [distractor.name] };
    expect(searchTools(surface, 'weather forecast')).toEqual([{ tool: 'weather.forecast.get', actions: [] }]);
    const task = billing.tasks.find((candidate) => candidate.id === 'deferred-archive-inv0904')!;
    const provider = new ScriptedProvider([
      callTurn('search_tools', { query: 'weather forecast' }, 's1'),
      callTurn('weather.forecast.get', { city: 'Oslo' }),
      textTurn('Sunny.'),
    ]);
    const record = scoreTrial(
      await runTrial({ provider, domain: billing.domain, surface, task, trial: 0 }),
      task,
      billing.domain.actions,
    );
    // The found distractor joins the following request, as a found billing tool would.
    expect(toolNames(provider, 1)).toEqual(['billing.customer.search', 'search_tools', 'weather.forecast.get']);
    expect(record.loading!.searches[0]!.results).toEqual([{ tool: 'weather.forecast.get', actions: [] }]);
    expect(record.calls.map((call) => call.proposal.name)).toEqual(['weather.forecast.get']);
    expect(record.verdicts.find((verdict) => verdict.grader === 'action')?.pass).toBe(false);
    expect(trialFacts(record)!.selection).toBe(false);
    // The search did not find the needed tool: "the search missed it".
    expect(record.verdicts.find((verdict) => verdict.grader === 'retrieval')?.pass).toBe(false);
  });

  it('answers bad search arguments with an error result and records a search with no results', async () => {
    const provider = new ScriptedProvider([
      callTurn('search_tools', { q: 'refund' }, 's1'),
      textTurn('I cannot check that.'),
    ]);
    const record = await trial('deferred-check-refund-inv1003', provider);
    const result = provider.requests[1]!.request.messages.at(-1)!;
    expect(result).toMatchObject({ role: 'tool', is_error: true });
    expect(record.loading!.searches).toEqual([
      { turn: 0, id: 's1', arguments: '{"q":"refund"}', results: [], error: '`query` must be a non-empty string' },
    ]);
    expect(record.calls).toEqual([]);
    expect(record.verdicts.find((verdict) => verdict.grader === 'retrieval')).toMatchObject({
      pass: false,
      actual: { searches: 1, rank: null },
    });
  });
});

describe('the deferred example run (replay cassette scripts search_tools)', () => {
  let summary: Summary;
  let markdown: string;
  let html: string;
  beforeAll(async () => {
    await runProject({ root: ROOT, out, runId: 'deferred' });
    const dir = join(out, 'deferred');
    summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'));
    markdown = await readFile(join(dir, 'report.md'), 'utf8');
    html = await readFile(join(dir, 'report.html'), 'utf8');
  });

  it('reports retrieval on the deferred surface only, with hand-checked figures', () => {
    const group = (surface: string) =>
      summary.groups.find(
        (candidate) => candidate.surface === surface && candidate.split === 'all' && candidate.kind === 'all',
      )!;
    expect(group('namespaced').retrieval).toBeUndefined();
    const retrieval = group('namespaced-deferred').retrieval!;
    // Judged: the 4 tasks that need a deferred tool (the abstention needs none).
    // Found: amount (rank 3 of "invoice amount"), archive (rank 2), Fjord's invoice list (rank 1); missed: the refund check.
    expect(retrieval.recall_at_k).toMatchObject({ value: 3 / 4, n: 4 });
    expect(retrieval.searched).toMatchObject({ value: 1, n: 4 });
    expect(retrieval.mean_rank).toBeCloseTo((3 + 2 + 1) / 3, 10);
    // Found and selected: amount and Fjord; found but ignored: the archive (the model called invoice.get).
    expect(retrieval.selection_given_found).toMatchObject({ value: 2 / 3, n: 3 });
    // The search missed the refund preview, and the model did not select it either.
    expect(retrieval.selection_given_missed).toMatchObject({ value: 0, n: 1 });
    expect(retrieval.searches_per_trial).toBeCloseTo(4 / 5, 10);
    expect(retrieval.top_k).toBe(3);
    expect(group('namespaced-deferred').schema_tokens).toBeLessThan(group('namespaced').schema_tokens);
  });

  it('renders the retrieval table in report.md and report.html', () => {
    expect(markdown).toContain('### Deferred loading: retrieval');
    // report.md escapes brackets in cells (`\[`), so the interval reads 75% \[30–95\] in the source.
    expect(markdown).toMatch(/\| namespaced-deferred \| all \| 4 \| 75% \\?\[30–95\\?\] @3 \|/);
    expect(html).toContain('id="retrieval"');
  });
});
