import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplayProvider, createReplayProviders, describeKey, expandGlob } from '../../providers/replay/index.ts';
import { runTrial, buildRequest, initialMessages, preflight, planTrials } from '../../src/solve/index.ts';
import { ConfigError, ProviderError, requestHash, requestPartHashes } from '../../src/spec/index.ts';
import type { CassetteLine } from '../../src/spec/index.ts';
import { makeTask, notesDomain, notesRunDomain, typedSurface, wideSurface } from '../solve/fixtures/notes-domain.ts';

/** A task that reads one note. */
const readTask = (id: string, note: string) =>
  makeTask({
    id,
    kind: 'must-call',
    messages: [{ role: 'user', content: `Read ${note}` }],
    actor: { permissions: ['note:read'] },
    expect: { action: 'note.get' },
  });
const task = readTask('read-1', 'N-1');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-replay-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function line(overrides: Partial<CassetteLine> & { key: CassetteLine['key'] }): CassetteLine {
  return {
    v: 1,
    provider: 'synthetic',
    model: 'careful',
    label: 'synthetic: careful',
    response: {
      text: 'hello',
      tool_calls: [],
      usage: { input_tokens: 1, output_tokens: 1 },
      latency_ms: 0,
      finish_reason: 'stop',
      warnings: [],
    },
    ...overrides,
  };
}

function writeCassette(dir: string, name: string, lines: unknown[]): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, lines.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n') + '\n');
  return file;
}

const firstRequest = () => buildRequest({ model: 'careful', surface: typedSurface, messages: initialMessages(task) });
const key = (trial = 0, turn = 0) => ({ domain: 'notes', task: 'read-1', surface: 'typed', trial, turn });

describe('replay provider', () => {
  it('answers by key; trial "*" matches any trial; the id is replay and the model is the cassette\'s', async () => {
    const dir = tempDir();
    writeCassette(dir, 'c.jsonl', [
      line({ key: { ...key(), trial: '*' } }),
      line({
        key: key(2),
        response: {
          text: 'trial two',
          tool_calls: [],
          usage: { input_tokens: 0, output_tokens: 0 },
          latency_ms: 0,
          finish_reason: 'stop',
          warnings: [],
        },
      }),
    ]);
    const [provider] = createReplayProviders(['c.jsonl'], { root: dir });
    expect(provider!.id).toBe('replay');
    expect(provider!.model).toBe('careful');
    expect(provider!.synthetic).toBe(true);
    expect((await provider!.propose(firstRequest(), { key: key(7) })).text).toBe('hello');
    expect((await provider!.propose(firstRequest(), { key: key(2) })).text).toBe('trial two');
  });

  it('a missing turn names the key', async () => {
    const provider = new ReplayProvider('careful', [
      { line: line({ key: key(0, 0) }), file: 'c.jsonl', lineNumber: 1 },
    ]);
    const error = await provider.propose(firstRequest(), { key: key(0, 1) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain('no turn for notes/read-1/typed/trial 0/turn 1');
    expect(describeKey(key(3, 2))).toBe('notes/read-1/typed/trial 3/turn 2');
  });

  it('refuses a stale cassette, naming the surface or the task that changed', async () => {
    const recorded = firstRequest();
    const stored = {
      line: line({ key: key(), request_hash: requestHash(recorded), ...requestPartHashes(recorded) }),
      file: 'c.jsonl',
      lineNumber: 4,
    };
    const provider = new ReplayProvider('careful', [stored]);
    await expect(provider.propose(recorded, { key: key() })).resolves.toMatchObject({ text: 'hello' });

    const changedSurface = {
      ...typedSurface,
      payload: typedSurface.payload.map((tool, index) => (index === 0 ? { ...tool, description: 'Changed.' } : tool)),
    };
    const surfaceRequest = buildRequest({ model: 'careful', surface: changedSurface, messages: initialMessages(task) });
    await expect(provider.propose(surfaceRequest, { key: key() })).rejects.toThrow(
      'stale cassette: the surface `typed` changed since it was recorded; re-record or pass --allow-stale (c.jsonl:4',
    );

    const taskRequest = buildRequest({
      model: 'careful',
      surface: typedSurface,
      messages: [{ role: 'user', content: 'Read N-1 please' }],
    });
    await expect(provider.propose(taskRequest, { key: key() })).rejects.toThrow(
      'stale cassette: the task `read-1` changed since it was recorded',
    );
    expect(provider.check(taskRequest, key())).toMatchObject({ kind: 'stale' });

    // Without the part hashes (older cassettes) the message names both candidates.
    const bare = new ReplayProvider('careful', [
      { ...stored, line: { ...stored.line, tools_hash: undefined, messages_hash: undefined } },
    ]);
    await expect(bare.propose(surfaceRequest, { key: key() })).rejects.toThrow(
      'the surface `typed` or the task `read-1` changed',
    );
    // --allow-stale replays anyway; no request_hash (hand-written) skips the check.
    const allowed = new ReplayProvider('careful', [stored], { allowStale: true });
    await expect(allowed.propose(surfaceRequest, { key: key() })).resolves.toMatchObject({ text: 'hello' });
    const handWritten = new ReplayProvider('careful', [
      { ...stored, line: { ...stored.line, request_hash: undefined } },
    ]);
    await expect(handWritten.propose(surfaceRequest, { key: key() })).resolves.toMatchObject({ text: 'hello' });
  });

  it('bad cassette JSON is a ConfigError with file:line', () => {
    const dir = tempDir();
    const file = writeCassette(dir, 'bad.jsonl', [
      line({ key: key() }),
      '{"v":1, "provider": ',
      line({ key: key(0, 1) }),
      { v: 1, provider: 'x' },
    ]);
    let error: unknown;
    try {
      createReplayProviders([file], { root: dir });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues[0]).toMatchObject({ file, line: 2 });
    expect(issues.some((issue) => issue.line === 4)).toBe(true);
    expect((error as Error).message).toContain(`${file}:2:`);
  });

  it('globs cassettes and makes one provider per model; a glob matching nothing is a ConfigError', () => {
    const dir = tempDir();
    writeCassette(dir, 'suites/notes/cassettes/synthetic-careful.jsonl', [line({ key: key() })]);
    writeCassette(dir, 'suites/notes/cassettes/synthetic-hasty.jsonl', [
      line({ model: 'hasty', label: 'synthetic: hasty', key: key() }),
    ]);
    writeCassette(dir, 'suites/other/cassettes/recorded.jsonl', [
      line({ provider: 'openai', model: 'gpt-x', label: undefined, key: key() }),
    ]);
    expect(expandGlob('suites/*/cassettes/*.jsonl', dir).map((file) => path.relative(dir, file))).toEqual([
      'suites/notes/cassettes/synthetic-careful.jsonl',
      'suites/notes/cassettes/synthetic-hasty.jsonl',
      'suites/other/cassettes/recorded.jsonl',
    ]);
    expect(expandGlob('**/*-hasty.jsonl', dir)).toHaveLength(1);
    const providers = createReplayProviders(['suites/*/cassettes/*.jsonl'], { root: dir });
    expect(providers.map((provider) => [provider.model, provider.synthetic])).toEqual([
      ['careful', true],
      ['gpt-x', false],
      ['hasty', true],
    ]);
    expect(() => createReplayProviders(['nothing/*.jsonl'], { root: dir })).toThrow(/no cassette matches/);
  });

  it('pre-flight turns a missing or stale first turn into a ConfigError before any call', () => {
    const recorded = firstRequest();
    const provider = new ReplayProvider('careful', [
      { line: line({ key: key(0), request_hash: requestHash(recorded) }), file: 'c.jsonl', lineNumber: 1 },
    ]);
    const domain = notesRunDomain([task], [typedSurface]);
    expect(() => preflight(planTrials([domain], [provider], { split: 'all', trials: 1 }))).not.toThrow();
    expect(() => preflight(planTrials([domain], [provider], { split: 'all', trials: 2 }))).toThrow(
      /no turn for notes\/read-1\/typed\/trial 1\/turn 0/,
    );
  });

  it("pre-flight builds each task's first request once, for all its trials, and one per task and surface", () => {
    const seen: { request: object; key: string }[] = [];
    const provider = new ReplayProvider('careful', []);
    provider.check = (request, turnKey) => {
      seen.push({ request, key: describeKey(turnKey) });
      return null;
    };
    const other = readTask('read-2', 'N-2');
    const domain = notesRunDomain([task, other], [typedSurface, wideSurface]);
    preflight(planTrials([domain], [provider], { split: 'all', trials: 3 }));
    expect(seen).toHaveLength(2 * 2 * 3);
    const distinct = new Set(seen.map(({ request }) => request));
    expect(distinct.size).toBe(2 * 2);
    // Trials of one task on one surface share the request; the keys still name every trial.
    expect(seen[0]!.request).toBe(seen[2]!.request);
    expect(seen[2]!.request).not.toBe(seen[3]!.request);
    expect(seen.map(({ key }) => key).slice(0, 4)).toEqual([
      'notes/read-1/typed/trial 0/turn 0',
      'notes/read-1/typed/trial 1/turn 0',
      'notes/read-1/typed/trial 2/turn 0',
      'notes/read-2/typed/trial 0/turn 0',
    ]);
  });

  it('a replayed trial whose later turn is missing is errored, not a crash', async () => {
    const provider = new ReplayProvider('careful', [
      {
        line: line({
          key: key(0, 0),
          response: {
            text: null,
            tool_calls: [{ id: 'c1', name: 'get_note', arguments: '{"note_id":"N-1"}' }],
            usage: { input_tokens: 0, output_tokens: 0 },
            latency_ms: 0,
            finish_reason: 'tool_calls',
            warnings: [],
          },
        }),
        file: 'c.jsonl',
        lineNumber: 1,
      },
    ]);
    const record = await runTrial({ provider, domain: notesDomain, surface: typedSurface, task, trial: 0 });
    expect(record.status).toBe('errored');
    expect(record.error?.message).toContain('no turn for notes/read-1/typed/trial 0/turn 1');
    expect(record.calls).toHaveLength(1);
  });
});
