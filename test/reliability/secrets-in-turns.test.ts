/**
 * Issue 17 items 7 and 8 — secrets inside model turns and in base URLs.
 *
 * Item 7: a server that answers 200 but echoes the key it received inside
 * the answer — the assistant text, a tool call's id, name and arguments, a
 * refusal, an unknown item type (which the adapter turns into a warning of
 * its own), a finish reason — through the real SDKs, in the three wire
 * formats (OpenAI Chat, OpenAI Responses, Anthropic Messages). Every file of
 * the run folder, the --record cassette, stdout and stderr are searched for
 * every secret: none may be found, and the records show `[redacted]` where
 * the echo was (so the echo really reached them).
 *
 * Item 8: credentials in a base URL (`http://user:pass@host/v1`) on the
 * command line are split off and sent as a Basic header; a preset the run
 * does not use is not in the manifest (its credentials neither); the
 * manifest records each live provider's effective base URL (one of them
 * from OPENAI_BASE_URL) without credentials; a bad spec's error never
 * prints the password.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProviderSpec } from '../../providers/index.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { ConfigError, Manifest, TrialRecord } from '../../src/spec/index.ts';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from '../providers/fake-server.ts';
import { listFiles, runCli, type CliResult } from '../helpers/cli.ts';
import { faultProject, faultTasks } from './fault-project.ts';

// Keys shaped like no known key format: only removal of the known key verbatim can catch them.
const KEYS = {
  chat: 'ak-CHATECHO-4f1e9a7b3c2d1e0f',
  responses: 'ak-RESPECHO-8e7d6c5b4a39',
  anthropic: 'ak-MSGSECHO-1a2b3c4d5e6f',
};
const PROXY_USER = 'proxyuser';
const PROXY_PASSWORD = 'pw-PROXYECHO-9a8b7c6d';
const UNUSED_PASSWORD = 'pw-UNUSEDPRESET-5e5e5e5e';
const BASIC_TOKEN = Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64');
const NEEDLES = [
  ...Object.values(KEYS),
  PROXY_PASSWORD,
  UNUSED_PASSWORD,
  BASIC_TOKEN,
  // Distinctive parts: a cut or re-encoded echo is a leak too.
  'CHATECHO',
  'RESPECHO',
  'MSGSECHO',
  'PROXYECHO',
  'UNUSEDPRESET',
];

/** The secret a request carried: the bearer key, the Anthropic key, or the Basic password. */
function secretOf(request: RecordedRequest): string {
  const authorization = String(request.headers.authorization ?? '');
  const basic = /^Basic (.+)$/.exec(authorization)?.[1];
  if (basic) return Buffer.from(basic, 'base64').toString('utf8').split(':')[1] ?? '';
  return /^Bearer (.+)$/.exec(authorization)?.[1] ?? String(request.headers['x-api-key'] ?? '');
}

/** The second request of a trial carries the tool results back. */
const isFollowUp = (request: RecordedRequest) => /function_call_output|"role":"tool"|tool_result/.test(request.rawBody);

function chatTurn(secret: string, followUp: boolean): unknown {
  const message = followUp
    ? { role: 'assistant', content: `done; your key is ${secret}`, refusal: `I will not repeat ${secret}` }
    : {
        role: 'assistant',
        content: `calling with ${secret}`,
        tool_calls: [
          {
            id: `call_${secret}`,
            type: 'function',
            function: { name: 'get_note', arguments: JSON.stringify({ note_id: 'N-1', echo: secret }) },
          },
          { id: 'call_2', type: 'function', function: { name: `tool_${secret}`, arguments: '{}' } },
          { id: 'call_3', type: `custom_${secret}` },
        ],
      };
  return {
    id: 'chatcmpl-echo',
    object: 'chat.completion',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, finish_reason: followUp ? `reason_${secret}` : 'tool_calls', message }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function responsesTurn(secret: string, followUp: boolean): unknown {
  const text = { type: 'output_text', text: `see ${secret}`, annotations: [] };
  const refusal = { type: 'refusal', refusal: `refused because of ${secret}` };
  return {
    id: 'resp_echo',
    object: 'response',
    created_at: 0,
    model: 'fake',
    status: followUp ? 'incomplete' : 'completed',
    incomplete_details: followUp ? { reason: `reason_${secret}` } : null,
    output: [
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [text, refusal] },
      ...(followUp
        ? []
        : [
            {
              type: 'function_call',
              id: 'fc_1',
              call_id: `call_${secret}`,
              name: 'get_note',
              arguments: JSON.stringify({ note_id: 'N-1', echo: secret }),
              status: 'completed',
            },
            { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: `tool_${secret}`, arguments: '{}' },
            { type: `item_${secret}`, id: 'x_1' },
          ]),
    ],
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  };
}

function messagesTurn(secret: string, followUp: boolean): unknown {
  return {
    id: 'msg_echo',
    type: 'message',
    role: 'assistant',
    model: 'fake',
    content: followUp
      ? [{ type: 'text', text: `the key was ${secret}` }]
      : [
          { type: 'text', text: `using ${secret}` },
          { type: 'tool_use', id: `toolu_${secret}`, name: 'get_note', input: { note_id: 'N-1', echo: secret } },
          { type: 'tool_use', id: 'toolu_2', name: `tool_${secret}`, input: {} },
          { type: `block_${secret}` },
        ],
    stop_reason: followUp ? 'refusal' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** Answers in the wire format the request came in, echoing the secret it carried everywhere a string goes. */
function reply(request: RecordedRequest): FakeReply {
  const secret = secretOf(request);
  const followUp = isFollowUp(request);
  if (request.path.endsWith('/messages')) return { body: messagesTurn(secret, followUp) };
  if (request.path.endsWith('/responses')) return { body: responsesTurn(secret, followUp) };
  return { body: chatTurn(secret, followUp) };
}

let server: FakeServer;
let project: { root: string; dispose(): Promise<void> };
let out: string;
let cassette: string;
let run: CliResult;
let compatibleSpec: string;

const runDir = () => path.join(out, 'results', 'echo');

beforeAll(async () => {
  server = await startFakeServer(reply, { sentinel: KEYS.chat });
  project = await faultProject('secrets-in-turns', server.url, faultTasks([{ name: 'echo' }]));
  const config = readFileSync(path.join(project.root, 'toolmark.config.yaml'), 'utf8');
  const presets = [
    '  responses:',
    '    kind: openai-responses',
    '    model: fake-responses',
    `    base_url: ${server.url}/v1`,
    '    api_key_env: KEY_RESPONSES',
    '  claude:',
    '    kind: anthropic',
    '    model: fake-claude',
    `    base_url: ${server.url}`,
    '    api_key_env: KEY_ANTHROPIC',
    // Never used by the run: neither it nor its password may appear in the manifest.
    '  unused:',
    '    kind: openai-compatible',
    '    model: other',
    `    base_url: http://someone:${UNUSED_PASSWORD}@unused.invalid/v1`,
    '',
  ];
  writeFileSync(path.join(project.root, 'toolmark.config.yaml'), `${config}${presets.join('\n')}`);
  const host = new URL(server.url).host;
  compatibleSpec = `openai-compatible:fake-compatible@http://${PROXY_USER}:${PROXY_PASSWORD}@${host}/v1`;
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-secrets-in-turns-'));
  cassette = path.join(out, 'recorded', 'cassette.jsonl');
  const providers = ['openai:fake-chat', 'responses', 'claude', compatibleSpec];
  run = await runCli(
    [
      'run',
      '--root',
      project.root,
      ...providers.flatMap((spec) => ['--provider', spec]),
      '--task',
      'fault-echo',
      '--surface',
      'typed',
      '--out',
      path.join(out, 'results'),
      '--run-id',
      'echo',
      '--record',
      cassette,
    ],
    {
      env: {
        OPENAI_API_KEY: KEYS.chat,
        OPENAI_BASE_URL: `${server.url}/v1`,
        KEY_RESPONSES: KEYS.responses,
        KEY_ANTHROPIC: KEYS.anthropic,
      },
    },
  );
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.dispose();
  if (out) rmSync(out, { recursive: true, force: true });
});

const leaks = (text: string) => NEEDLES.filter((needle) => text.includes(needle));

function records(): TrialRecord[] {
  return readFileSync(path.join(runDir(), RUN_FILES.trials), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => TrialRecord.parse(JSON.parse(line)));
}

describe('a key echoed inside a model turn (item 7)', () => {
  it('every provider sent its secret and got it back in its answers, two turns each', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(server.violations).toEqual([]);
    // 4 providers × (the turn with calls + the follow-up).
    expect(server.requests).toHaveLength(8);
    const secrets = new Set(server.requests.map(secretOf));
    expect(secrets).toEqual(new Set([...Object.values(KEYS), PROXY_PASSWORD]));
    // The URL's credentials went as a Basic header, never in the URL or a body.
    const compatible = server.requests.filter((request) => request.body?.model === 'fake-compatible');
    expect(compatible).toHaveLength(2);
    for (const request of compatible) {
      expect(request.headers.authorization).toBe(`Basic ${BASIC_TOKEN}`);
      expect(request.path).toBe('/v1/chat/completions');
    }
    for (const request of server.requests) expect(leaks(request.path + request.rawBody)).toEqual([]);
  });

  it('the records hold [redacted] where the key was: text, call id, name, arguments, refusal, warnings', () => {
    const all = records();
    expect(all.map((record) => `${record.provider}:${record.status}`).sort()).toEqual([
      'claude:completed',
      'openai-compatible:completed',
      'openai:completed',
      'responses:completed',
    ]);
    for (const record of all) {
      const [first, second] = record.turns;
      expect(first!.text, record.provider).toContain('[redacted]');
      const names = first!.tool_calls.map((call) => call.name);
      expect(names, record.provider).toEqual(['get_note', 'tool_[redacted]']);
      expect(first!.tool_calls[0]!.id).toMatch(/_\[redacted\]$/);
      // Still valid JSON, the key replaced inside it.
      expect(JSON.parse(first!.tool_calls[0]!.arguments)).toEqual({ note_id: 'N-1', echo: '[redacted]' });
      expect(second!.text, record.provider).toContain('[redacted]');
      // A warning the adapter built from the echoed type or reason.
      const warnings = [...first!.warnings, ...second!.warnings].join('\n');
      expect(warnings, record.provider).toMatch(/\[redacted\]/);
    }
    const chat = all.find((record) => record.provider === 'openai')!;
    expect(chat.turns[1]!.warnings).toContain('refusal: I will not repeat [redacted]');
    expect(chat.turns[1]!.finish_reason).toBe('reason_[redacted]');
  });

  it('no file of the run folder, nor the cassette, nor the terminal holds a secret', () => {
    const files = [...listFiles(out), ...listFiles(project.root)];
    const names = files.map((file) => path.basename(file));
    expect(names).toEqual(
      expect.arrayContaining([
        'manifest.json',
        'trials.jsonl',
        'summary.json',
        'report.md',
        'report.html',
        'junit.xml',
        'cassette.jsonl',
      ]),
    );
    // The cassette recorded every turn (redacted before the recorder saw it).
    expect(readFileSync(cassette, 'utf8').trim().split('\n')).toHaveLength(8);
    expect(readFileSync(cassette, 'utf8')).toContain('[redacted]');
    const found = files
      // The project's config names the unused preset's password itself: the user's file, not one the run wrote.
      .filter((file) => path.basename(file) !== 'toolmark.config.yaml')
      .flatMap((file) => leaks(readFileSync(file).toString('latin1')).map((needle) => `${file}: ${needle}`));
    expect(found).toEqual([]);
    expect(leaks(run.stdout)).toEqual([]);
    expect(leaks(run.stderr)).toEqual([]);
  });
});

describe('credentials in base URLs (item 8)', () => {
  it('the manifest lists only the presets the run used and every effective base URL, without credentials', () => {
    const manifest = Manifest.parse(JSON.parse(readFileSync(path.join(runDir(), RUN_FILES.manifest), 'utf8')));
    expect(Object.keys(manifest.config.providers).sort()).toEqual(['claude', 'responses']);
    const host = new URL(server.url).host;
    expect(manifest.providers.map((entry) => [entry.id, entry.base_url])).toEqual([
      // From OPENAI_BASE_URL.
      ['openai:fake-chat', `${server.url}/v1`],
      ['responses', `${server.url}/v1`],
      ['claude', server.url],
      [`openai-compatible:fake-compatible@http://${host}/v1`, `http://${host}/v1`],
    ]);
    expect(manifest.config.selection!.providers).toContain(`openai-compatible:fake-compatible@http://${host}/v1`);
  });

  it('MODEL@URL splits at the @ that starts the URL: a model may hold @ and :, the URL credentials', () => {
    expect(parseProviderSpec('openai-compatible:qwen2.5:7b@http://u:p@w@127.0.0.1:8080/v1')).toMatchObject({
      model: 'qwen2.5:7b',
      baseURL: 'http://u:p@w@127.0.0.1:8080/v1',
    });
    expect(parseProviderSpec('openai-compatible:org/model@v2@https://host/v1')).toMatchObject({
      model: 'org/model@v2',
      baseURL: 'https://host/v1',
    });
  });

  it('a bad spec is refused without printing the password (in-process and from the CLI, exit 2)', async () => {
    const bad = `openai-compatible:@http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:9/v1`;
    let caught: unknown;
    try {
      parseProviderSpec(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain('needs a model and a base URL');
    expect(leaks((caught as Error).message)).toEqual([]);
    const refused = await runCli(['run', '--root', project.root, '--provider', bad, '--out', path.join(out, 'bad')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`http://127.0.0.1:9/v1`);
    expect(leaks(refused.stderr + refused.stdout)).toEqual([]);
  });
});
