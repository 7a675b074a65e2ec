import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepProject, type SweepOptions } from '../../src/run/index.ts';
import type { SweepRow } from '../../src/report/index.ts';
import { fakeServerPerTest, SENTINEL_KEY } from '../providers/fake-server.ts';
import { keywordModel } from '../helpers/keyword-model.ts';
import { runCli } from '../helpers/cli.ts';
import { REPO_ROOT } from '../load/materialize.ts';

// A sweep of a live provider (`--provider openai:MODEL --record FILE`), through the real SDKs against a
// local fake model (test/helpers/keyword-model.ts), then the recorded cassette replayed offline.
const startServer = fakeServerPerTest();
const out = mkdtempSync(join(tmpdir(), 'toolmark-sweep-live-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const ladder: Pick<SweepOptions, 'root' | 'domain' | 'surface' | 'sizes' | 'from' | 'seed' | 'out'> = {
  root: REPO_ROOT,
  domain: 'tickets',
  surface: 'typed-v2',
  sizes: [5, 20],
  from: ['generated', 'domain:billing'],
  seed: 0,
  out,
};
const selection = { trials: 1, task: '*status*', split: 'all' as const };

/** What must be identical between a recorded sweep and its replay (the provider id differs: replay). */
const comparable = (rows: readonly SweepRow[]) => rows.map(({ provider: _provider, ...row }) => row);

describe('a sweep of your own model: record live, replay offline', () => {
  it('openai:MODEL (Chat Completions via OPENAI_BASE_URL) records every rung; replay gives the identical rows', async () => {
    const server = await startServer(keywordModel);
    const cassette = join(out, 'openai.jsonl');
    const recorded = await sweepProject({
      ...ladder,
      loading: ['eager', 'deferred'],
      selection: { ...selection, providers: ['openai:keyword-model'] },
      record: cassette,
      env: { OPENAI_API_KEY: SENTINEL_KEY, OPENAI_BASE_URL: `${server.url}/v1` },
      runId: 'openai-recorded',
    });
    // 2 tasks × 4 rungs, one trial each; every trial reached the model.
    expect(recorded.outcome.ran).toBe(8);
    expect(recorded.outcome.errored).toBe(0);
    const calls = server.requests.length;
    expect(calls).toBeGreaterThanOrEqual(8);
    // Eager rungs send the whole payload; a deferred rung's first request sends search_tools alone (emulated search
    // on Chat Completions), and the model's search turn comes back with the found tools in the next request.
    const toolNames = (index: number) =>
      (server.requests[index]!.body.tools ?? []).map((tool: any) => tool.function.name as string);
    const firstRequests = server.requests
      .map((_request, index) => index)
      .filter((index) => {
        const messages = server.requests[index]!.body.messages as { role: string }[];
        return !messages.some((message) => message.role === 'assistant');
      });
    const counts = firstRequests.map((index) => toolNames(index).length).sort((a, b) => a - b);
    expect(counts).toEqual([1, 1, 1, 1, 5, 5, 20, 20]);
    expect(firstRequests.filter((index) => toolNames(index)[0] === 'search_tools')).toHaveLength(4);
    const cassetteText = readFileSync(cassette, 'utf8');
    expect(cassetteText).not.toContain(SENTINEL_KEY);
    expect(cassetteText.trimEnd().split('\n')).toHaveLength(calls);

    // Offline: no key, no base URL; replay refuses stale lines (no allowStale), so equal rows prove equal requests.
    const replayed = await sweepProject({
      ...ladder,
      loading: ['eager', 'deferred'],
      selection: { ...selection, providers: [`replay:${cassette}`] },
      env: {},
      runId: 'openai-replayed',
    });
    expect(server.requests).toHaveLength(calls);
    expect(replayed.outcome.errored).toBe(0);
    expect(replayed.rows).toHaveLength(4);
    expect(comparable(replayed.rows)).toEqual(comparable(recorded.rows));
    expect(replayed.rows.every((row) => row.provider === 'replay' && row.model === 'keyword-model')).toBe(true);
  });

  it('anthropic:MODEL (Messages via ANTHROPIC_BASE_URL) records eager rungs; replay gives the identical rows', async () => {
    const server = await startServer(keywordModel);
    const cassette = join(out, 'anthropic.jsonl');
    const recorded = await sweepProject({
      ...ladder,
      loading: ['eager'],
      selection: { ...selection, providers: ['anthropic:keyword-model'] },
      record: cassette,
      env: { ANTHROPIC_API_KEY: SENTINEL_KEY, ANTHROPIC_BASE_URL: server.url },
      runId: 'anthropic-recorded',
    });
    expect(recorded.outcome.ran).toBe(4);
    expect(recorded.outcome.errored).toBe(0);
    expect(server.requests.every((request) => request.path === '/v1/messages')).toBe(true);
    const replayed = await sweepProject({
      ...ladder,
      loading: ['eager'],
      selection: { ...selection, providers: [`replay:${cassette}`] },
      env: {},
      runId: 'anthropic-replayed',
    });
    expect(replayed.rows).toHaveLength(2);
    expect(comparable(replayed.rows)).toEqual(comparable(recorded.rows));
  });

  it('CLI: toolmark sweep --provider openai-compatible:MODEL@URL --record FILE, then --provider replay:FILE prints the same table', async () => {
    const server = await startServer(keywordModel);
    const cassette = join(out, 'compatible.jsonl');
    const args = [
      'sweep',
      '--surface',
      'typed-v2',
      '--sizes',
      '5,20',
      '--from',
      'generated',
      '--from',
      'domain:billing',
      '--loading',
      'eager,deferred',
      '--trials',
      '1',
      '--task',
      '*status*',
      '--out',
      out,
    ];
    const live = await runCli([
      ...args,
      '--provider',
      `openai-compatible:keyword-model@${server.url}/v1`,
      '--record',
      cassette,
      '--run-id',
      'cli-recorded',
    ]);
    expect(live.stderr).toBe('');
    expect(live.code).toBe(0);
    const calls = server.requests.length;
    expect(calls).toBeGreaterThanOrEqual(8);
    const offline = await runCli([...args, '--provider', `replay:${cassette}`, '--run-id', 'cli-replayed']);
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(0);
    expect(server.requests).toHaveLength(calls);
    const table = (stdout: string) => stdout.slice(0, stdout.indexOf('\n\n'));
    expect(table(live.stdout)).toMatch(/tools\s+distractors\s+loading/);
    expect(table(live.stdout)).toMatch(/^\s*20\s+15\s+deferred/m);
    expect(table(offline.stdout)).toBe(table(live.stdout));
    // A real model's sweep is not labelled synthetic.
    expect(live.stdout).not.toContain('scripted behaviours');
  });
});
