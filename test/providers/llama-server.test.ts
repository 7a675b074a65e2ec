/**
 * Issue 21 — live runs on a llama.cpp-like server, through the real openai
 * SDK and the whole `toolmark run`: malformed arguments in the history,
 * a schema `pattern` the server cannot compile, replies cut at the token
 * limit. Every expected score is computed by hand in the comments.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { ProjectConfig, ProviderError, Summary, TrialRecord } from '../../src/spec/index.ts';
import { createProvider, parseProviderSpec } from '../../providers/index.ts';
import { runCli, REPO_ROOT } from '../helpers/cli.ts';
import { materialize } from '../load/materialize.ts';
import { fakeServerPerTest } from './fake-server.ts';
import { llamaServer, llamaTurn, PARSE_ERROR, PATTERN_ERROR } from './llama-server.ts';
import { sampleRequest } from './sample-request.ts';

const startFakeServer = fakeServerPerTest();
const disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
});

function readRun(runDir: string): { trials: TrialRecord[]; summary: Summary } {
  const trials = readFileSync(path.join(runDir, RUN_FILES.trials), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => TrialRecord.parse(JSON.parse(line)));
  const summary = Summary.parse(JSON.parse(readFileSync(path.join(runDir, RUN_FILES.summary), 'utf8')));
  return { trials, summary };
}

/** project-basic's must-call and must-abstain tasks, alone. */
const TWO_TASKS = `v: 1
tasks:
  - id: read-n1
    kind: must-call
    messages:
      - { role: user, content: "What does note N-1 say?" }
    actor: { permissions: [note:read] }
    expect: { action: note.get, args: { note_id: N-1 } }
  - id: greet
    kind: must-abstain
    messages:
      - { role: user, content: "Hi there, thanks!" }
    expect: { abstain: true }
`;

const group = (summary: Summary, surface: string) =>
  summary.groups.find((entry) => entry.surface === surface && entry.split === 'all' && entry.kind === 'all')!;

describe('the fake llama-server itself', () => {
  it('refuses raw malformed arguments in the history with 500, and the adapter stops after the same 500 twice', async () => {
    const server = await startFakeServer(llamaServer(() => ({ text: 'ok' })));
    // Straight through the SDK: what toolmark used to send back (the raw `{`).
    const client = new OpenAI({ apiKey: 'x', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const raw = client.chat.completions.create({
      model: 'tiny',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_note', arguments: '{' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"code":"invalid_arguments"}' },
      ],
    });
    await expect(raw).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining('Failed to parse tool call arguments as JSON'),
    });

    // A schema with `pattern`: 500 every time. Identical 500s: two attempts, not four.
    const provider = createOpenAIProvider({
      model: 'tiny',
      apiKey: 'x',
      baseURL: `${server.url}/v1`,
      maxRetries: 3,
      retry: { initialDelayMs: 1, maxDelayMs: 1 },
    });
    const patterned = sampleRequest();
    patterned.tools[0]!.parameters = { type: 'object', properties: { id: { type: 'string', pattern: '^T-\\d{3}$' } } };
    const failure = await provider.propose(patterned).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).message).toContain('Unsupported pattern syntax');
    expect((failure as ProviderError).message).toMatch(/after 2 attempts\); the same 500 twice/);
    expect((failure as ProviderError).scope).toBe('request');
    expect(server.requests).toHaveLength(1 + 2);
  });
});

describe('drop_schema_keywords: the compatibility option for servers that cannot compile a keyword', () => {
  it('a preset with drop_schema_keywords: [pattern] sends no pattern (a parameter named pattern stays) and the server answers', async () => {
    const server = await startFakeServer(llamaServer(() => ({ text: 'fine' })));
    const config = ProjectConfig.parse({
      providers: {
        llama: {
          kind: 'openai-compatible',
          model: 'tiny',
          base_url: `${server.url}/v1`,
          drop_schema_keywords: ['pattern'],
        },
      },
    });
    const provider = await createProvider(parseProviderSpec('llama', config.providers), { config, env: {} });
    const request = sampleRequest();
    request.tools[0]!.parameters = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^T-\\d{3}$' }, pattern: { type: 'string' } },
      required: ['id'],
    };
    const turn = await provider.propose(request);
    expect(turn.text).toBe('fine');
    expect(server.requests[0]!.body.tools[0].function.parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, pattern: { type: 'string' } },
      required: ['id'],
    });
    // The normalised request (what the registry and the request hash see) keeps its pattern.
    expect(JSON.stringify(request.tools[0]!.parameters)).toContain('"pattern":"^T-');
  });
});

describe('toolmark run against a llama.cpp-like server', () => {
  it(
    'scores a call cut at the token limit and a cut-off reply, sends {} back for the malformed call, caps max_tokens at 1024',
    { timeout: 120_000 },
    async () => {
      const server = await startFakeServer(
        llamaServer((request) => {
          const { user, turn } = llamaTurn(request);
          if (user.includes('note N-1'))
            return turn === 0
              ? { call: { name: 'get_note', arguments: '{' }, finish: 'length' }
              : { text: 'N-1 says: first' };
          return { text: 'Once upon a time, in a land far', finish: 'length' };
        }),
      );
      const project = await materialize(null, 'llama');
      disposers.push(project.dispose);
      await writeFile(path.join(project.root, 'suites/notes/tasks/train.yaml'), TWO_TASKS);
      const out = mkdtempSync(path.join(tmpdir(), 'toolmark-llama-'));
      const result = await runCli(
        [
          'run',
          '--root',
          project.root,
          '--provider',
          `openai-compatible:tiny@${server.url}/v1`,
          '--surface',
          'typed',
          '--split',
          'train',
          '--trials',
          '2',
          '--out',
          out,
          '--run-id',
          'llama',
        ],
        {},
      );
      const { trials, summary } = readRun(path.join(out, 'llama'));
      expect(result.code, result.stderr).toBe(0);

      // No request was refused: the malformed `{` went back as `{}`.
      expect(server.requests.length).toBe(2 * 2 + 2);
      for (const request of server.requests) expect(request.body.max_tokens).toBe(1024);
      const second = server.requests.find((request) => llamaTurn(request).turn === 1)!;
      const assistant = second.body.messages.find((message: { role: string }) => message.role === 'assistant');
      expect(assistant.tool_calls[0].function.arguments).toBe('{}');
      const toolResult = second.body.messages.find((message: { role: string }) => message.role === 'tool');
      expect(toolResult.content).toContain('invalid_arguments');

      const read = trials.filter((trial) => trial.task === 'read-n1');
      const greet = trials.filter((trial) => trial.task === 'greet');
      for (const trial of read) {
        expect(trial.status).toBe('completed');
        expect(trial.calls[0]!.proposal.arguments).toBe('{'); // the record keeps what the model wrote
        expect(trial.turns[0]!.finish_reason).toBe('length');
      }
      for (const trial of greet) {
        expect(trial.verdicts.find((verdict) => verdict.grader === 'abstain')).toMatchObject({
          pass: false,
          actual: { class: 'cut_off_or_empty', calls: 0 },
        });
      }

      // By hand, 4 trials, none errored:
      // - selection: read-n1 picks get_note → note.get (2 of 2); greet's cut-off story is no abstention (0 of 2) → 2/4.
      // - argument validity: 2 checked proposals, both `{` → 0/2.
      // - task success: read-n1 has invalid arguments, greet did not abstain → 0/4.
      const typed = group(summary, 'typed');
      expect(typed.trials).toBe(4);
      expect(typed.errored).toBe(0);
      expect(typed.selection_accuracy).toMatchObject({ value: 0.5, n: 4 });
      expect(typed.argument_validity).toMatchObject({ value: 0, n: 2 });
      expect(typed.task_success).toMatchObject({ value: 0, n: 4 });
      expect(typed.abstentions).toEqual({ cut_off_or_empty: 2 });

      // The reports and the CLI say how the turns ended: per trial read-n1 has a cut call (length) and an answer (stop),
      // greet one cut story (length) → 6 turns, length 4, stop 2; no call in 4; every turn has a warning
      // (cut at the token limit ×4, `{}` sent back ×2).
      const facts =
        '6 model turns · finish reasons: length 4, stop 2 — 4 cut at the token limit · turns with no tool call: 4 · turns with warnings: 6';
      const markdown = readFileSync(path.join(out, 'llama', 'report.md'), 'utf8');
      expect(markdown).toContain(facts);
      expect(markdown).toMatch(/openai-compatible\/tiny: 4 trials · tokens 1,860 in \/ 4,120 out · latency p50 \d/);
      expect(result.stdout).toContain(facts);
      const html = readFileSync(path.join(out, 'llama', 'report.html'), 'utf8');
      expect(html).toContain('Usage, turns and errors');
      expect(html).toContain('sent back as {} in the history');
    },
  );

  it(
    'a schema pattern the server cannot compile stops the run after the first 5 trials, naming the complaint (exit 2)',
    { timeout: 120_000 },
    async () => {
      const server = await startFakeServer(llamaServer(() => ({ text: 'never reached' })));
      const out = mkdtempSync(path.join(tmpdir(), 'toolmark-llama-pattern-'));
      // The shipped tickets domain: typed-v2 constrains ticket ids with `pattern: ^T-\d{3}$`.
      const result = await runCli(
        [
          'run',
          '--root',
          REPO_ROOT,
          '--provider',
          `openai-compatible:tiny@${server.url}/v1`,
          '--domain',
          'tickets',
          '--surface',
          'typed-v2',
          '--trials',
          '3',
          '--concurrency',
          '1',
          '--out',
          out,
          '--run-id',
          'pattern',
        ],
        {},
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /run stopped early \(openai-compatible:tiny\): the first 5 trials all failed the same way: .*HTTP 500: JSON schema conversion failed:/,
      );
      expect(result.stderr).toContain('Unsupported pattern syntax');
      const { trials, summary } = readRun(path.join(out, 'pattern'));
      // One trial at a time: exactly 5 trials, each 2 attempts (the same 500 twice is not retried again).
      expect(trials).toHaveLength(5);
      expect(trials.every((trial) => trial.status === 'errored' && trial.error?.scope === 'request')).toBe(true);
      // The two failed attempts took time: an errored trial no longer records 0 ms.
      expect(trials.every((trial) => trial.latency_ms > 0)).toBe(true);
      expect(server.requests).toHaveLength(10);
      expect(group(summary, 'typed-v2')).toMatchObject({ trials: 5, errored: 5 });

      // Each retry is printed with its cause; without a terminal, progress lines too.
      expect(result.stderr).toMatch(
        /^retry: openai-compatible:tiny tickets\/[\w-]+\/typed-v2 trial 0: attempt 1 failed \(HTTP 500: JSON schema conversion failed:/m,
      );
      expect(result.stderr).toMatch(/^progress: 0\/\d+ trials$/m);
      // The reports say the run is incomplete and what failed.
      const markdown = readFileSync(path.join(out, 'pattern', 'report.md'), 'utf8');
      expect(markdown).toMatch(/⚠️ \*\*5 of \d+ planned trials — incomplete/);
      expect(markdown).toContain('### Errors');
      expect(markdown).toContain('- every trial of openai-compatible/tiny typed-v2 errored — nothing on it was scored');
      expect(markdown).toMatch(
        /- 5 × openai-compatible chat tiny: HTTP 500: JSON schema conversion failed: Unsupported pattern syntax/,
      );
      expect(result.stdout).toMatch(/errors:\n  every trial of openai-compatible\/tiny typed-v2 errored/);
      expect(PATTERN_ERROR).toContain('pattern');
      expect(PARSE_ERROR).toContain('Failed to parse');
    },
  );
});
