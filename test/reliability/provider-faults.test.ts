/**
 * Issue 9 item 2 — provider faults through a whole `toolmark run` against a
 * local OpenAI-compatible fake server: 429 storms, 5xx, connection resets,
 * hung sockets, truncated and non-object bodies, unknown tool names, empty
 * and non-object arguments, and a model that calls tools forever. The run
 * completes (exit 0); each trial says exactly what happened; provider
 * failures are `errored` and kept out of every rate, model misbehaviour is
 * scored as the model's.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { Summary, TrialRecord } from '../../src/spec/index.ts';
import { SENTINEL_KEY, startFakeServer, type FakeReply, type FakeServer } from '../providers/fake-server.ts';
import { runCli, type CliResult } from '../helpers/cli.ts';
import { FAULT_TIMEOUT_MS, KEY_VARIABLE, completion, faultOf, faultProject, faultTasks } from './fault-project.ts';

const getNote = (args: string) => completion(null, [{ name: 'get_note', arguments: args }]);
const answer = completion('N-1 says: first');
const retryNow = { 'retry-after': '0' };

/**
 * What the fake model does per fault, by the turn of the trial (0 = first
 * request) and how many requests this fault has seen in all.
 */
const FAULTS: Record<string, (turn: number, seen: number) => FakeReply> = {
  'rate-limit-storm': () => ({
    status: 429,
    headers: retryNow,
    body: { error: { message: 'Rate limit reached for requests', type: 'requests' } },
  }),
  'rate-limit-then-ok': (turn, seen) =>
    seen === 0
      ? { status: 429, headers: retryNow, body: { error: { message: 'slow down' } } }
      : turn === 0
        ? { body: getNote('{"note_id":"N-1"}') }
        : { body: answer },
  'server-error-500': () => ({
    status: 500,
    headers: retryNow,
    body: { error: { message: 'The server had an error while processing your request' } },
  }),
  'overloaded-503': () => ({ status: 503, headers: retryNow, body: { error: { message: 'overloaded' } } }),
  'bad-request-400': () => ({ status: 400, body: { error: { message: "Invalid 'tools': schema not supported" } } }),
  'connection-reset': () => ({ kind: 'reset' }),
  'hung-socket': () => ({ kind: 'hang' }),
  'truncated-json': () => ({ kind: 'truncate', body: getNote('{"note_id":"N-1"}') }),
  'json-null-body': () => ({ body: null }),
  'no-choices': () => ({
    body: {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'fake-model',
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 },
    },
  }),
  'unknown-tool-name': (turn) => ({
    body: turn === 0 ? completion(null, [{ name: 'delete_all_notes', arguments: '{}' }]) : answer,
  }),
  'empty-arguments': (turn) => ({ body: turn === 0 ? getNote('') : answer }),
  'array-arguments': (turn) => ({ body: turn === 0 ? getNote('["N-1"]') : answer }),
  'string-arguments': (turn) => ({ body: turn === 0 ? getNote('"N-1"') : answer }),
  'null-arguments': (turn) => ({ body: turn === 0 ? getNote('null') : answer }),
  'invalid-json-arguments': (turn) => ({ body: turn === 0 ? getNote('{"note_id": "N-1"') : answer }),
  'calls-forever-max-calls': () => ({ body: getNote('{"note_id":"N-1"}') }),
  'calls-forever-max-turns': () => ({ body: getNote('{"note_id":"N-1"}') }),
  'many-calls-in-one-turn': () => ({
    body: completion(
      null,
      Array.from({ length: 6 }, () => ({ name: 'get_note', arguments: '{"note_id":"N-1"}' })),
    ),
  }),
};
const LIMITS: Record<string, { max_calls: number; max_turns: number }> = {
  'calls-forever-max-calls': { max_calls: 3, max_turns: 50 },
  'calls-forever-max-turns': { max_calls: 50, max_turns: 4 },
  'many-calls-in-one-turn': { max_calls: 2, max_turns: 5 },
};

let server: FakeServer;
let project: { root: string; dispose(): Promise<void> };
let out: string;
let result: CliResult;
let trials: Map<string, TrialRecord>;
let summary: Summary;

beforeAll(async () => {
  const seen = new Map<string, number>();
  server = await startFakeServer((request) => {
    const { fault, turn } = faultOf(request);
    const count = seen.get(fault) ?? 0;
    seen.set(fault, count + 1);
    const behave = FAULTS[fault];
    return behave ? behave(turn, count) : { status: 418, body: { error: { message: `no such fault ${fault}` } } };
  });
  project = await faultProject(
    'faults',
    server.url,
    faultTasks(Object.keys(FAULTS).map((name) => ({ name, limits: LIMITS[name] }))),
  );
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-faults-'));
  result = await runCli(
    [
      'run',
      '--root',
      project.root,
      '--provider',
      'fake',
      '--task',
      'fault-*',
      '--surface',
      'typed',
      '--out',
      out,
      '--run-id',
      'faults',
    ],
    { env: { [KEY_VARIABLE]: SENTINEL_KEY } },
  );
  const runDir = path.join(out, 'faults');
  trials = new Map(
    readFileSync(path.join(runDir, RUN_FILES.trials), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => {
        const record = TrialRecord.parse(JSON.parse(line));
        return [record.task.replace(/^fault-/, ''), record];
      }),
  );
  summary = Summary.parse(JSON.parse(readFileSync(path.join(runDir, RUN_FILES.summary), 'utf8')));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.dispose();
  if (out) rmSync(out, { recursive: true, force: true });
});

function trial(fault: string): TrialRecord {
  const record = trials.get(fault);
  if (!record) throw new Error(`no trial for fault ${fault}`);
  return record;
}

describe('provider faults through toolmark run', () => {
  it('the run completes with every trial written and scored or errored', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('internal error');
    expect([...trials.keys()].sort()).toEqual(Object.keys(FAULTS).sort());
    expect(server.violations).toEqual([]);
  });

  it.each([
    ['rate-limit-storm', 429, /HTTP 429: Rate limit reached for requests \(after 2 attempts\)/],
    ['server-error-500', 500, /HTTP 500: The server had an error.* \(after 2 attempts\)/],
    ['overloaded-503', 503, /HTTP 503: overloaded \(after 2 attempts\)/],
    ['bad-request-400', 400, /HTTP 400: Invalid 'tools': schema not supported$/],
    ['connection-reset', null, /connection failed \(.+\) \(after 2 attempts\)/],
    ['hung-socket', null, new RegExp(`request timed out after ${FAULT_TIMEOUT_MS} ms \\(after 2 attempts\\)`)],
    ['truncated-json', null, /not valid JSON \(truncated\?\).* \(after 2 attempts\)/],
    ['json-null-body', null, /response is not a chat completion \(got null\)/],
    ['no-choices', null, /response is not a chat completion \(no choices\)/],
  ] as const)('%s → errored (status %s), saying what happened, not scored', (fault, status, message) => {
    const record = trial(fault);
    expect(record.status).toBe('errored');
    expect(record.stop_reason).toBe('errored');
    expect(record.error?.status ?? null).toBe(status);
    expect(record.error?.message).toMatch(message);
    expect(record.error?.message).toContain('fake chat fake-model: ');
    // Not a model miss: no verdicts, no success value.
    expect(record.verdicts).toEqual([]);
    expect(record.success).toBeNull();
  });

  it('a 429 followed by success: the trial completes and its turn records the retry', () => {
    const record = trial('rate-limit-then-ok');
    expect(record.status).toBe('completed');
    expect(record.success).toBe(true);
    expect(record.turns[0]!.warnings.join('\n')).toMatch(
      /attempt 1 failed \(HTTP 429: slow down\); retried after 0 ms/,
    );
  });

  it("an unknown tool name is the model's miss: routed unknown_tool, told the available tools, scored", () => {
    const record = trial('unknown-tool-name');
    expect(record.status).toBe('completed');
    expect(record.calls[0]!.routing).toEqual({ kind: 'unknown_tool' });
    expect(record.calls[0]!.outcome).toMatchObject({
      ok: false,
      error: { code: 'tool_not_found', category: 'routing' },
    });
    expect((record.calls[0]!.outcome as { error: { message: string } }).error.message).toContain('get_note');
    expect(record.success).toBe(false);
    expect(record.verdicts.find((verdict) => verdict.grader === 'action')?.pass).toBe(false);
  });

  it.each(['empty-arguments', 'array-arguments', 'string-arguments', 'null-arguments', 'invalid-json-arguments'])(
    '%s: not parsed, invalid_arguments fed back, no registry call, scored as a model miss',
    (fault) => {
      const record = trial(fault);
      expect(record.status).toBe('completed');
      const call = record.calls[0]!;
      expect(call.parsed).toBe(false);
      expect(call.schema_valid).toBe(false);
      expect(call.outcome).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
      expect(record.effects).toEqual([]);
      expect(record.success).toBe(false);
    },
  );

  it('a model that calls tools forever is cut by max_calls (the extra call is not executed)', () => {
    const record = trial('calls-forever-max-calls');
    expect(record.status).toBe('completed');
    expect(record.stop_reason).toBe('max_calls');
    // Three ran; the fourth turn's proposal is recorded (scored), never executed.
    expect(record.calls).toHaveLength(4);
    expect(record.calls.filter((call) => call.not_executed === undefined)).toHaveLength(3);
    expect(record.calls[3]!.not_executed).toBe('max_calls');
    expect(record.turns).toHaveLength(4);
    expect(record.success).toBe(false);
  });

  it('a model that calls tools forever is cut by max_turns', () => {
    const record = trial('calls-forever-max-turns');
    expect(record.status).toBe('completed');
    expect(record.stop_reason).toBe('max_turns');
    expect(record.requests).toHaveLength(4);
    expect(record.calls).toHaveLength(4);
    expect(record.success).toBe(false);
  });

  it('six calls in one turn with max_calls 2: two run, the rest are recorded as not executed', () => {
    const record = trial('many-calls-in-one-turn');
    expect(record.stop_reason).toBe('max_calls');
    expect(record.calls).toHaveLength(6);
    expect(record.calls.map((call) => call.not_executed ?? 'ran')).toEqual([
      'ran',
      'ran',
      'max_calls',
      'max_calls',
      'max_calls',
      'max_calls',
    ]);
  });

  it('provider failures are excluded from every rate; model misses are counted', () => {
    const group = summary.groups.find((candidate) => candidate.kind === 'all' && candidate.split === 'all')!;
    const errored = [...trials.values()].filter((record) => record.status === 'errored').length;
    expect(errored).toBe(9);
    expect(group.trials).toBe(trials.size);
    expect(group.errored).toBe(errored);
    expect(group.task_success.n).toBe(trials.size - errored);
    expect(group.selection_accuracy.n).toBe(trials.size - errored);
    // Only the 429-then-ok trial did the task; the misbehaving models did not.
    expect(group.task_success.value).toBeCloseTo(1 / (trials.size - errored), 10);
  });
});
