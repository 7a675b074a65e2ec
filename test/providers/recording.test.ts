import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCassetteWriter, recordingProvider } from '../../providers/recording.ts';
import { createReplayProviders } from '../../providers/replay/index.ts';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { executeRun, planTrials } from '../../src/solve/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { CassetteLine, ProviderError } from '../../src/spec/index.ts';
import type { Provider, TrialRecord } from '../../src/spec/index.ts';
import { makeTask, notesRunDomain } from '../solve/fixtures/notes-domain.ts';

const writer = { permissions: ['note:read', 'note:write'] };
const tasks = [
  makeTask({
    id: 'read-1',
    kind: 'must-call',
    messages: [{ role: 'user', content: 'Read N-1' }],
    actor: writer,
    expect: { action: 'note.get' },
  }),
  makeTask({
    id: 'follow-2',
    kind: 'multi-step',
    messages: [{ role: 'user', content: 'Follow up on N-2' }],
    actor: writer,
    approve: 'after_preview',
    expect: { sequence: ['note.preview', 'note.record'] },
  }),
];

/** A fake live model whose answers vary by trial, including a malformed call. */
const live = () =>
  new ScriptedProvider(
    (request, key) => {
      const wide = request.tools[0]!.name === 'note_operation';
      const turn = key!.turn;
      const usage = { input_tokens: 100 + turn, output_tokens: 7 };
      if (request.messages[0]!.content === 'Read N-1') {
        if (turn > 0) return { ...textTurn('N-1 read'), usage, latency_ms: 12 };
        if (key!.trial === 1)
          return { ...callTurn(wide ? 'note_operation' : 'get_note', '{"note_id": N-1}'), usage, latency_ms: 40 };
        return {
          ...callTurn(
            wide ? 'note_operation' : 'get_note',
            wide ? { operation: 'get', payload: { note_id: 'N-1' } } : { note_id: 'N-1' },
          ),
          usage,
          latency_ms: 40,
        };
      }
      const payload = { note_id: 'N-2', text: `t${key!.trial}` };
      if (turn === 0)
        return {
          ...callTurn(wide ? 'note_operation' : 'preview_followup', wide ? { operation: 'preview', payload } : payload),
          usage,
          latency_ms: 20,
        };
      if (turn === 1)
        return {
          ...callTurn(
            wide ? 'note_operation' : 'record_followup',
            wide ? { operation: 'record', payload: { ...payload, action_id: 'a' } } : { ...payload, action_id: 'a' },
          ),
          usage,
          latency_ms: 20,
        };
      return { ...textTurn('done'), usage, latency_ms: 5 };
    },
    { id: 'openai', model: 'gpt-test' },
  );

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function records(dir: string): Promise<Record<string, unknown>> {
  const list: [string, unknown][] = [];
  for await (const record of readTrials(dir)) {
    const { started_at: _started, provider: _provider, ...rest } = record as TrialRecord;
    list.push([
      `${record.surface}/${record.task}/${record.trial}`,
      { ...rest, calls: rest.calls.map((call) => ({ ...call, latency_ms: 0 })) },
    ]);
  }
  return Object.fromEntries(list.sort(([a], [b]) => a.localeCompare(b)));
}

describe('recording provider', () => {
  it('records a failed request as its error, and replay shows the original failure (not "no turn … re-record")', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-record-error-'));
    const replayed = mkdtempSync(path.join(tmpdir(), 'toolmark-replay-error-'));
    dirs.push(dir, replayed);
    const cassette = path.join(dir, 'recorded.jsonl');
    const failing = new ScriptedProvider(
      () => {
        throw new ProviderError(
          'openai chat gpt-test: HTTP 500: Failed to parse tool call arguments as JSON (after 2 attempts)',
          { status: 500, retryable: false, scope: 'request' },
        );
      },
      { id: 'openai', model: 'gpt-test' },
    );
    const plan = (provider: Provider) =>
      planTrials([notesRunDomain(tasks.slice(0, 1))], [provider], { split: 'all', trials: 1 });
    await executeRun({
      runDir: dir,
      plan: plan(recordingProvider(failing, createCassetteWriter(cassette))),
      concurrency: 1,
    });
    const lines = readFileSync(cassette, 'utf8')
      .trimEnd()
      .split('\n')
      .map((text) => CassetteLine.parse(JSON.parse(text)));
    expect(
      lines.every(
        (line) => line.response === undefined && line.error?.status === 500 && line.error.scope === 'request',
      ),
    ).toBe(true);

    const [replay] = createReplayProviders([cassette], { root: '/' });
    await executeRun({ runDir: replayed, plan: plan(replay!), concurrency: 1 });
    for await (const record of readTrials(replayed)) {
      expect(record.status).toBe('errored');
      expect(record.error).toMatchObject({ status: 500, retryable: false, scope: 'request' });
      expect(record.error!.message).toMatch(
        /^replayed failure \(.*recorded\.jsonl:\d+\): openai chat gpt-test: HTTP 500: Failed to parse tool call arguments as JSON/,
      );
    }
  });

  it('a cassette line with both a response and an error, or neither, is refused', () => {
    const base = { v: 1, provider: 'p', model: 'm', key: { domain: 'd', task: 't', surface: 's', trial: 0, turn: 0 } };
    expect(CassetteLine.safeParse(base).success).toBe(false);
    expect(
      CassetteLine.safeParse({
        ...base,
        response: { text: 'x' },
        error: { status: null, message: 'e', retryable: false },
      }).success,
    ).toBe(false);
    expect(CassetteLine.safeParse({ ...base, error: { status: null, message: 'e', retryable: false } }).success).toBe(
      true,
    );
  });

  it('writes one cassette line per turn, with key and request hash, and nothing else', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-record-'));
    dirs.push(dir);
    const cassette = path.join(dir, 'nested', 'recorded.jsonl');
    const provider = recordingProvider(live(), createCassetteWriter(cassette));
    await executeRun({
      runDir: dir,
      plan: planTrials([notesRunDomain(tasks)], [provider], { split: 'all', trials: 2 }),
      concurrency: 4,
    });
    const lines = readFileSync(cassette, 'utf8')
      .trimEnd()
      .split('\n')
      .map((text) => CassetteLine.parse(JSON.parse(text)));
    // read-1: 2 turns; follow-2: 3 turns; × 2 surfaces × 2 trials.
    expect(lines).toHaveLength((2 + 3) * 2 * 2);
    expect(
      lines.every((item) => item.request_hash?.startsWith('sha256:') && item.tools_hash && item.messages_hash),
    ).toBe(true);
    expect(lines.every((item) => item.provider === 'openai' && item.model === 'gpt-test')).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(cassette, 'utf8').split('\n')[0]!)).sort()).toEqual([
      'key',
      'messages_hash',
      'model',
      'provider',
      'request_hash',
      'response',
      'tools_hash',
      'v',
    ]);
  });

  it('recording → replay reproduces identical trial records', async () => {
    const recordedRun = mkdtempSync(path.join(tmpdir(), 'toolmark-record-'));
    const replayedRun = mkdtempSync(path.join(tmpdir(), 'toolmark-replay-'));
    dirs.push(recordedRun, replayedRun);
    const cassette = path.join(recordedRun, 'cassette.jsonl');
    const domains = [notesRunDomain(tasks)];
    await executeRun({
      runDir: recordedRun,
      plan: planTrials(domains, [recordingProvider(live(), createCassetteWriter(cassette))], {
        split: 'all',
        trials: 3,
      }),
      concurrency: 3,
    });
    const [replay] = createReplayProviders([cassette], { root: '/' });
    expect(replay!.model).toBe('gpt-test');
    const outcome = await executeRun({
      runDir: replayedRun,
      plan: planTrials(domains, [replay!], { split: 'all', trials: 3 }),
      concurrency: 5,
    });
    expect(outcome.errored).toBe(0);
    const original = await records(recordedRun);
    expect(Object.keys(original)).toHaveLength(12);
    expect(await records(replayedRun)).toEqual(original);
  });
});
