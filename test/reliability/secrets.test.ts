/**
 * Issue 9 item 4 — secrets. Keys come only from the environment; a run
 * whose fake provider echoes the key back (in an error body, in echoed
 * request headers) never writes it anywhere: not in the results folder
 * (trials, summary, manifest, reports), not in the --record cassette, not on
 * stdout or stderr. Two keys are used: one shaped like a real key (`sk-…`)
 * and one that matches no key pattern, so redaction of the known key
 * verbatim is tested as well as the pattern.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { TrialRecord } from '../../src/spec/index.ts';
import {
  SENTINEL_KEY,
  startFakeServer,
  type FakeReply,
  type FakeServer,
  type RecordedRequest,
} from '../providers/fake-server.ts';
import { listFiles, runCli, type CliResult } from '../helpers/cli.ts';
import { KEY_VARIABLE, completion, faultOf, faultProject, faultTasks } from './fault-project.ts';

/** A key that looks like no known key format: only verbatim redaction can catch it. */
const PLAIN_KEY = 'ak-LOCAL-SENTINEL-77e1d0c9b8a7f6e5';
const PLAIN_VARIABLE = 'FAKE_ANTHROPIC_KEY';
/** Distinctive parts: finding any of them anywhere is a leak, even if the rest was cut. */
const NEEDLES = [SENTINEL_KEY, PLAIN_KEY, 'SENTINEL-0123456789abcdef', '77e1d0c9b8a7f6e5'];

/** The key as the client sent it (OpenAI: bearer header; Anthropic: x-api-key). */
function sentKey(request: RecordedRequest): string {
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
  return bearer ?? String(request.headers['x-api-key'] ?? '');
}

const anthropicMessage = (text: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'fake-claude',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 5 },
});

/** Per fault, what the server answers; `anthropic` when the request came to /v1/messages. */
function reply(request: RecordedRequest): FakeReply {
  const { fault, turn } = faultOf(request);
  const anthropic = request.path.includes('/messages');
  const key = sentKey(request);
  const headers = JSON.stringify(request.headers);
  const error = (status: number, message: string): FakeReply => ({
    status,
    headers: { 'retry-after': '0' },
    body: anthropic
      ? { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'api_error', message } }
      : { error: { message, type: 'invalid_request_error', code: null } },
  });
  switch (fault) {
    case 'ok':
      if (anthropic) return { body: anthropicMessage('N-1 says first') };
      return {
        body:
          turn === 0
            ? completion(null, [{ name: 'get_note', arguments: '{"note_id":"N-1"}' }])
            : completion('N-1 says first'),
      };
    case 'echo-401':
      return error(
        401,
        `Incorrect API key provided: ${key}. You can find your API key at https://example.invalid/keys.`,
      );
    case 'echo-headers-500':
      return error(500, `upstream failed; request was ${request.method} ${request.path} with headers ${headers}`);
    case 'echo-query-400':
      return error(400, `bad request: api_key=${key}&model=x; Authorization: Bearer ${key}; x-api-key: ${key}`);
    case 'echo-plain-403':
      return error(403, `the key ${key} may not use this model`);
    default:
      return error(404, `no such fault ${fault}`);
  }
}

let server: FakeServer;
let project: { root: string; dispose(): Promise<void> };
let out: string;
let cassette: string;
let run: CliResult;

beforeAll(async () => {
  server = await startFakeServer(reply);
  project = await faultProject(
    'secrets',
    server.url,
    faultTasks(['ok', 'echo-401', 'echo-headers-500', 'echo-query-400', 'echo-plain-403'].map((name) => ({ name }))),
  );
  // A second preset, Anthropic wire format, whose key matches no key pattern.
  const config = readFileSync(path.join(project.root, 'toolmark.config.yaml'), 'utf8');
  writeFileSync(
    path.join(project.root, 'toolmark.config.yaml'),
    `${config}  fake-claude:\n    kind: anthropic\n    model: fake-claude\n    base_url: ${server.url}\n    api_key_env: ${PLAIN_VARIABLE}\n    timeout_ms: 15000\n    max_retries: 1\n`,
  );
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-secrets-'));
  cassette = path.join(out, 'recorded', 'cassette.jsonl');
  run = await runCli(
    [
      'run',
      '--root',
      project.root,
      '--provider',
      'fake',
      '--provider',
      'fake-claude',
      '--task',
      'fault-*',
      '--surface',
      'typed',
      '--out',
      path.join(out, 'results'),
      '--run-id',
      'secrets',
      '--record',
      cassette,
    ],
    { env: { [KEY_VARIABLE]: SENTINEL_KEY, [PLAIN_VARIABLE]: PLAIN_KEY } },
  );
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.dispose();
  if (out) rmSync(out, { recursive: true, force: true });
});

function leaks(text: string): string[] {
  return NEEDLES.filter((needle) => text.includes(needle));
}

describe('secrets', () => {
  it('the keys were really used, in headers only', () => {
    expect(run.code, run.stderr).toBe(0);
    const keysSent = new Set(server.requests.map(sentKey));
    expect(keysSent).toEqual(new Set([SENTINEL_KEY, PLAIN_KEY]));
    expect(server.violations).toEqual([]);
  });

  it('the server echoed the keys back, and the trials say what failed without them', () => {
    const records = readFileSync(path.join(out, 'results', 'secrets', RUN_FILES.trials), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => TrialRecord.parse(JSON.parse(line)));
    const errored = records.filter((record) => record.status === 'errored');
    // Four echoing faults × two providers.
    expect(errored).toHaveLength(8);
    for (const record of errored) {
      expect(record.error!.message).toContain('[redacted]');
      expect(leaks(record.error!.message)).toEqual([]);
    }
    // Each preset is its own provider, named after the preset.
    expect(new Set(records.map((record) => record.provider))).toEqual(new Set(['fake', 'fake-claude']));
    const unauthorized = errored.find((record) => record.provider === 'fake' && record.task === 'fault-echo-401')!;
    expect(unauthorized.error).toMatchObject({ status: 401, retryable: false });
    expect(unauthorized.error!.message).toContain('HTTP 401: Incorrect API key provided: [redacted]');
  });

  it('no file the run wrote holds a key: results, reports, the cassette, the project', () => {
    const files = [...listFiles(out), ...listFiles(project.root)];
    // The run really wrote the files we search (reports included), and recorded turns.
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
    expect(existsSync(cassette) && readFileSync(cassette, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(3);
    const found = files.flatMap((file) =>
      leaks(readFileSync(file).toString('latin1')).map((needle) => `${file}: ${needle}`),
    );
    expect(found).toEqual([]);
  });

  it('stdout and stderr hold no key', () => {
    expect(leaks(run.stdout)).toEqual([]);
    expect(leaks(run.stderr)).toEqual([]);
  });

  it('a key written in the config file is refused (keys come from the environment only), without echoing it', async () => {
    const config = readFileSync(path.join(project.root, 'toolmark.config.yaml'), 'utf8');
    writeFileSync(
      path.join(project.root, 'toolmark.config.yaml'),
      config.replace(`api_key_env: ${KEY_VARIABLE}`, `api_key: ${SENTINEL_KEY}`),
    );
    try {
      const refused = await runCli(
        ['run', '--root', project.root, '--provider', 'fake', '--out', path.join(out, 'refused')],
        { env: { [KEY_VARIABLE]: SENTINEL_KEY } },
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('providers.fake.api_key: unknown field "api_key"');
      expect(leaks(refused.stderr + refused.stdout)).toEqual([]);
      expect(existsSync(path.join(out, 'refused'))).toBe(false);
    } finally {
      writeFileSync(path.join(project.root, 'toolmark.config.yaml'), config);
    }
  });

  it('a missing key names the variable, and only the variable', async () => {
    const missing = await runCli(
      ['run', '--root', project.root, '--provider', 'fake-claude', '--out', path.join(out, 'missing')],
      { env: { [KEY_VARIABLE]: SENTINEL_KEY } },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `error: --provider: fake-claude: no API key: set the environment variable ${PLAIN_VARIABLE} (expected ${PLAIN_VARIABLE} in the environment (keys are never read from files))`,
    );
  });
});
