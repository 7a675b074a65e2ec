/**
 * A native tool-search recording replays through the native path (issue 19):
 * `--record` on an Anthropic or OpenAI Responses provider with a deferred
 * surface, through the real SDK against a local server speaking its wire
 * format, then replay offline with no `--allow-stale`: the same requests
 * (hash for hash) and an identical summary.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProviders } from '../../providers/replay/index.ts';
import { runProject } from '../../src/run/index.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { CassetteLine, ConfigError } from '../../src/spec/index.ts';
import { SENTINEL_KEY, fakeServerPerTest, type FakeHandler } from './fake-server.ts';

const ROOT = fileURLToPath(new URL('../../examples/deferred/', import.meta.url));
const startServer = fakeServerPerTest();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const usage = { input_tokens: 200, output_tokens: 12 };

/**
 * The Messages API of a model that searches first: a fresh conversation gets
 * a search that pauses the turn (`pause_turn`); its continuation calls
 * invoice.get; after a tool result it answers in text.
 */
const anthropicServer: FakeHandler = (request) => {
  const last = request.body.messages.at(-1);
  const message = (content: unknown[], stop_reason: string) => ({
    body: {
      id: 'msg',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content,
      stop_reason,
      stop_sequence: null,
      usage,
    },
  });
  if (last.role === 'assistant')
    return message(
      [{ type: 'tool_use', id: 'toolu_1', name: 'billing__invoice__get', input: { invoice_id: 'INV-1003' } }],
      'tool_use',
    );
  if (last.content.some((block: any) => block.type === 'tool_result'))
    return message([{ type: 'text', text: 'INV-1003 was for $47.50.' }], 'end_turn');
  return message(
    [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_bm25', input: { query: 'invoice' } },
      {
        type: 'tool_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: {
          type: 'tool_search_tool_search_result',
          tool_references: [
            { type: 'tool_reference', tool_name: 'billing__invoice__get' },
            { type: 'tool_reference', tool_name: 'billing__invoice__lookup_archive' },
          ],
        },
      },
    ],
    'pause_turn',
  );
};

/** The Responses API of the same model: a hosted search loading the `billing` namespace, a namespaced call, then text. */
const openaiServer: FakeHandler = (request) => {
  const answered = request.body.input.some((item: any) => item.type === 'function_call_output');
  const output = answered
    ? [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'INV-1003 was for $47.50.', annotations: [] }],
        },
      ]
    : [
        {
          type: 'tool_search_call',
          id: 'tsc_1',
          call_id: 'call_ts',
          execution: 'server',
          status: 'completed',
          arguments: { paths: ['billing'] },
        },
        {
          type: 'tool_search_output',
          id: 'tso_1',
          call_id: 'call_ts',
          execution: 'server',
          status: 'completed',
          tools: [
            {
              type: 'namespace',
              name: 'billing',
              description: 'Billing.',
              tools: [{ type: 'function', name: 'invoice__get', parameters: null, strict: true }],
            },
          ],
        },
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          namespace: 'billing',
          name: 'invoice__get',
          arguments: '{"invoice_id":"INV-1003"}',
          status: 'completed',
        },
      ];
  return {
    body: {
      id: 'resp',
      object: 'response',
      created_at: 1764633600,
      status: 'completed',
      model: 'm',
      output,
      usage: { ...usage, total_tokens: 212 },
    },
  };
};

/** summary.json without what differs between two runs of one plan: run id, provider id, and wall-clock fields. */
function comparableSummary(runDir: string): unknown {
  const summary = JSON.parse(readFileSync(path.join(runDir, RUN_FILES.summary), 'utf8'));
  return JSON.parse(JSON.stringify(summary), (key, value) =>
    key === 'run_id' || key === 'provider' || key === 'generated_at' ? '-' : value,
  );
}

const CASES = [
  {
    name: 'Anthropic Messages',
    spec: 'anthropic:test-model',
    handler: anthropicServer,
    env: (url: string) => ({ ANTHROPIC_API_KEY: SENTINEL_KEY, ANTHROPIC_BASE_URL: url }),
    native: 'anthropic',
  },
  {
    name: 'OpenAI Responses',
    spec: 'openai-responses:test-model',
    handler: openaiServer,
    env: (url: string) => ({ OPENAI_API_KEY: SENTINEL_KEY, OPENAI_BASE_URL: url }),
    native: 'openai',
  },
] as const;

// Two runs of the example each (record, replay), with their reports: generous on a shared machine.
describe('native tool search: record, then replay offline', { timeout: 180_000 }, () => {
  for (const { name, spec, handler, env, native } of CASES) {
    it(`${name}: the replay takes the native path, needs no --allow-stale, and gives an identical summary`, async () => {
      const out = mkdtempSync(path.join(tmpdir(), 'toolmark-native-replay-'));
      dirs.push(out);
      const cassette = path.join(out, 'native.jsonl');
      const server = await startServer(handler);
      const selection = { surfaces: ['namespaced-deferred'], trials: 1 };
      const recorded = await runProject({
        root: ROOT,
        out,
        runId: 'recorded',
        record: cassette,
        env: env(server.url),
        selection: { ...selection, providers: [spec] },
      });
      expect(recorded.outcome.errored).toBe(0);

      const lines = readFileSync(cassette, 'utf8')
        .trimEnd()
        .split('\n')
        .map((text) => CassetteLine.parse(JSON.parse(text)));
      // Every line of the deferred surface says which native search answered it.
      expect(lines.length).toBeGreaterThan(0);
      expect(new Set(lines.map((line) => line.tool_search))).toEqual(new Set([native]));
      expect(readFileSync(cassette, 'utf8')).not.toContain(SENTINEL_KEY);
      const [replay] = createReplayProviders([cassette], { root: out });
      expect(replay!.toolSearch).toBe(native);

      const requestsBefore = server.requests.length;
      const replayed = await runProject({
        root: ROOT,
        out,
        runId: 'replayed',
        env: {},
        selection: { ...selection, providers: [`replay:${cassette}`] },
      });
      expect(server.requests.length).toBe(requestsBefore);
      expect(replayed.outcome.errored).toBe(0);
      expect(replayed.manifest.config.selection?.allow_stale).toBe(false);
      expect(comparableSummary(replayed.runDir)).toEqual(comparableSummary(recorded.runDir));
      // Not vacuous: the trials searched natively, and the replay scored them as native retrievals.
      const groups = replayed.summary.groups.filter((group) => group.kind === 'all');
      expect(groups.length).toBeGreaterThan(0);
      expect(groups.every((group) => (group.retrieval?.searched.value ?? 0) > 0)).toBe(true);
    });
  }

  it('refuses one model recorded with two native searches, naming the line', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'toolmark-native-mixed-'));
    dirs.push(out);
    const line = (toolSearch: string, turn: number) =>
      JSON.stringify({
        v: 1,
        provider: 'p',
        model: 'm',
        key: { domain: 'billing', task: 't', surface: 's', trial: 0, turn },
        tool_search: toolSearch,
        response: { text: 'x' },
      });
    const file = path.join(out, 'mixed.jsonl');
    writeFileSync(file, `${line('anthropic', 0)}\n${line('openai', 1)}\n`);
    expect(() => createReplayProviders([file], { root: out })).toThrow(ConfigError);
    try {
      createReplayProviders([file], { root: out });
    } catch (error) {
      const issue = (error as ConfigError).issues[0]!;
      expect(issue).toMatchObject({ file, line: 2, field: 'tool_search' });
      expect(issue.message).toContain('recorded with the anthropic tool search');
    }
  });
});
