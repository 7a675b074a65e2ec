/**
 * Issue 17 item 7, the last gap (d) — a key the server transforms before
 * echoing it: base64 (both alphabets, the key alone and inside
 * `Basic base64(user:KEY)` at all three byte offsets), hex, percent-encoding,
 * JSON unicode escapes inside a tool call's arguments, and a 14-character
 * fragment. One `toolmark run --record` through the real OpenAI and
 * Anthropic SDKs against a local server that echoes the key it received in
 * those forms in 200 answers (text, tool call name and arguments, a refusal)
 * and in a 400 error message. Every file of the run folder, the cassette,
 * stdout and stderr are searched for every form sent: none may be found, and
 * the records show `[redacted]` where each echo was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrialRecord } from '../../src/spec/index.ts';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from '../providers/fake-server.ts';
import { listFiles, runCli, trialLines, type CliResult } from '../helpers/cli.ts';
import { faultOf, faultProject, faultTasks, KEY_VARIABLE } from './fault-project.ts';

// Shaped like no known key: only the known-secret redaction can catch them.
const KEYS = { fake: 'zq-TRANSFORMCHAT-7c1d9e2f4a6b', claude: 'zq-TRANSFORMMSGS-3e5f7a9b1c2d' };

const base64 = (text: string) => Buffer.from(text).toString('base64');
const urlSafe = (text: string) => text.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
const hex = (text: string) => Buffer.from(text).toString('hex');
const everyBytePercent = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const unicodeEscapes = (text: string) =>
  [...text].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** Every transformed form the server echoes for `key`, by name. */
function formsOf(key: string): Record<string, string> {
  return {
    base64: base64(key),
    base64UrlSafe: urlSafe(base64(`~${key}`)),
    // The key at byte offsets 4, 5 and 3 of the blob: ≡ 1, 2 and 0 (mod 3), each alignment once.
    basic0: base64(`abc:${key}`),
    basic1: base64(`user:${key}`),
    basic2: base64(`me:${key}`),
    hex: hex(key),
    hexUpper: hex(key).toUpperCase(),
    percent: everyBytePercent(key),
    fragment: key.slice(2, 16),
    // A blob cut short: 20 characters of the key's base64.
    cutBase64: base64(key).slice(4, 24),
  };
}

/** The Chat turn: the forms in the text, a tool name, the arguments (JSON escapes too) and a refusal. */
function chatTurn(key: string, followUp: boolean): unknown {
  const forms = formsOf(key);
  const message = followUp
    ? {
        role: 'assistant',
        content: `fragment ${forms.fragment} and ${forms.base64UrlSafe}; cut ${forms.cutBase64}`,
        refusal: `I will not repeat ${forms.percent}`,
      }
    : {
        role: 'assistant',
        content: `Basic ${forms.basic0} | Basic ${forms.basic1} | Basic ${forms.basic2} | ${forms.base64}`,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: {
              name: 'get_note',
              // Written by hand: the key as \uXXXX escapes inside the raw arguments string.
              arguments: `{"note_id":"N-1","escaped":"${unicodeEscapes(key)}","hex":"${forms.hexUpper}"}`,
            },
          },
          { id: 'call_2', type: 'function', function: { name: `tool_${forms.hex}`, arguments: '{}' } },
        ],
      };
  return {
    id: 'chatcmpl-echo',
    object: 'chat.completion',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, finish_reason: followUp ? 'stop' : 'tool_calls', message }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function messagesTurn(key: string, followUp: boolean): unknown {
  const forms = formsOf(key);
  return {
    id: 'msg_echo',
    type: 'message',
    role: 'assistant',
    model: 'fake',
    content: followUp
      ? [{ type: 'text', text: `fragment ${forms.fragment}; ${forms.percent}; cut ${forms.cutBase64}` }]
      : [
          { type: 'text', text: `Basic ${forms.basic0} ${forms.basic1} ${forms.basic2} ${forms.base64UrlSafe}` },
          { type: 'tool_use', id: 'toolu_1', name: 'get_note', input: { note_id: 'N-1', hex: forms.hexUpper } },
          { type: 'tool_use', id: 'toolu_2', name: `tool_${forms.hexUpper}`, input: { b64: forms.base64 } },
        ],
    stop_reason: followUp ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

function keyOf(request: RecordedRequest): string {
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
  return bearer ?? String(request.headers['x-api-key'] ?? '');
}

function reply(request: RecordedRequest): FakeReply {
  const key = keyOf(request);
  const { fault, turn } = faultOf(request);
  const anthropic = request.path.endsWith('/messages');
  if (fault === 'refused') {
    const forms = formsOf(key);
    const message = `bad credentials: Basic ${forms.basic1}; hex ${forms.hex}; fragment ${forms.fragment}`;
    return anthropic
      ? { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } }
      : { status: 400, body: { error: { message, type: 'invalid_request_error' } } };
  }
  return { body: anthropic ? messagesTurn(key, turn > 0) : chatTurn(key, turn > 0) };
}

let server: FakeServer;
let project: { root: string; dispose(): Promise<void> };
let out: string;
let cassette: string;
let run: CliResult;
const runDir = () => path.join(out, 'results', 'transformed');

beforeAll(async () => {
  server = await startFakeServer(reply, { sentinel: KEYS.fake });
  project = await faultProject('transformed-secrets', server.url, faultTasks([{ name: 'echo' }, { name: 'refused' }]), {
    maxRetries: 0,
  });
  const config = readFileSync(path.join(project.root, 'toolmark.config.yaml'), 'utf8');
  const claude = ['  claude:', '    kind: anthropic', '    model: fake-claude', `    base_url: ${server.url}`];
  writeFileSync(
    path.join(project.root, 'toolmark.config.yaml'),
    `${config}${[...claude, '    api_key_env: KEY_CLAUDE', '    max_retries: 0', ''].join('\n')}`,
  );
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-transformed-secrets-'));
  cassette = path.join(out, 'recorded', 'cassette.jsonl');
  run = await runCli(
    [
      'run',
      '--root',
      project.root,
      '--provider',
      'fake',
      '--provider',
      'claude',
      '--task',
      'fault-*',
      '--surface',
      'typed',
      '--out',
      path.join(out, 'results'),
      '--run-id',
      'transformed',
      '--record',
      cassette,
    ],
    { env: { [KEY_VARIABLE]: KEYS.fake, KEY_CLAUDE: KEYS.claude } },
  );
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.dispose();
  if (out) rmSync(out, { recursive: true, force: true });
});

/**
 * Every 16-character window of every form sent, and the keys: a window that
 * survives anywhere is a leak. (The few characters of a Basic token that
 * encode `user:` are shorter than a window, so a redacted echo leaves none.)
 */
const NEEDLES = [
  ...Object.values(KEYS),
  ...Object.values(KEYS)
    .flatMap((key) => [...Object.values(formsOf(key)), unicodeEscapes(key)])
    .flatMap((form) => Array.from({ length: Math.max(1, form.length - 15) }, (_, at) => form.slice(at, at + 16))),
  'TRANSFORMCHAT',
  'TRANSFORMMSGS',
];
const leaks = (text: string) => NEEDLES.filter((needle) => text.includes(needle));

const records = () => trialLines(runDir()).map((line) => TrialRecord.parse(line));

describe('a key the server transforms before echoing it (d)', () => {
  it('each provider sent its key in a header only and got the transformed forms back', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(server.violations).toEqual([]);
    // 2 providers × (echo: 2 turns + refused: 1 request).
    expect(server.requests).toHaveLength(6);
    expect(new Set(server.requests.map(keyOf))).toEqual(new Set(Object.values(KEYS)));
    for (const request of server.requests) expect(leaks(request.path + request.rawBody)).toEqual([]);
  });

  it('the records hold [redacted] where each form was: text, tool name, arguments (still JSON), refusal, error', () => {
    const all = records();
    expect(all.map((record) => `${record.provider}:${record.task}:${record.status}`).sort()).toEqual([
      'claude:fault-echo:completed',
      'claude:fault-refused:errored',
      'fake:fault-echo:completed',
      'fake:fault-refused:errored',
    ]);
    for (const record of all.filter((trial) => trial.task === 'fault-echo')) {
      const [first, second] = record.turns;
      // Three Basic tokens (each byte offset) and a base64 form: four marks.
      expect(first!.text!.split('[redacted]'), record.provider).toHaveLength(5);
      expect(first!.tool_calls.map((call) => call.name)).toEqual(['get_note', 'tool_[redacted]']);
      const args = JSON.parse(first!.tool_calls[0]!.arguments);
      expect(
        Object.values(args).filter((value) => value === '[redacted]'),
        record.provider,
      ).toHaveLength(record.provider === 'fake' ? 2 : 1);
      expect(second!.text, record.provider).toContain('fragment [redacted]');
      expect(second!.text, record.provider).toContain('cut [redacted]');
    }
    const chat = all.find((record) => record.provider === 'fake' && record.task === 'fault-echo')!;
    expect(chat.turns[1]!.warnings).toContain('refusal: I will not repeat [redacted]');
    for (const record of all.filter((trial) => trial.task === 'fault-refused')) {
      expect(record.error!.message, record.provider).toContain('hex [redacted]; fragment [redacted]');
    }
  });

  it('no file of the run folder, nor the cassette, nor the terminal holds any form of a key', () => {
    const files = [...listFiles(out), ...listFiles(project.root)];
    expect(files.map((file) => path.basename(file))).toEqual(
      expect.arrayContaining([
        'trials.jsonl',
        'summary.json',
        'report.md',
        'report.html',
        'junit.xml',
        'cassette.jsonl',
      ]),
    );
    expect(readFileSync(cassette, 'utf8')).toContain('[redacted]');
    const found = files.flatMap((file) =>
      leaks(readFileSync(file).toString('latin1')).map((needle) => `${file}: ${needle}`),
    );
    expect(found).toEqual([]);
    expect(leaks(run.stdout)).toEqual([]);
    expect(leaks(run.stderr)).toEqual([]);
  });
});
