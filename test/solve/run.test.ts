import { mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import type { ScriptFunction } from '../../providers/scripted.ts';
import { executeRun, parseShard, planTrials } from '../../src/solve/index.ts';
import { RUN_FILES, readTrials } from '../../src/run-folder/index.ts';
import { ConfigError } from '../../src/spec/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';
import { makeTask, notesRunDomain } from './fixtures/notes-domain.ts';

const writer = { permissions: ['note:read', 'note:write'] };
const tasks = [
  makeTask({
    id: 'read-1',
    kind: 'must-call',
    messages: [{ role: 'user', content: 'Read N-1' }],
    actor: writer,
    expect: { action: 'note.get' },
  }),
  makeTask(
    { id: 'hello', kind: 'must-abstain', messages: [{ role: 'user', content: 'Hi' }], expect: { abstain: true } },
    'heldout',
  ),
  makeTask({
    id: 'follow-2',
    kind: 'multi-step',
    messages: [{ role: 'user', content: 'Follow up on N-2' }],
    actor: writer,
    approve: 'after_preview',
    expect: { sequence: ['note.preview', 'note.record'] },
  }),
  makeTask({
    id: 'follow-3',
    kind: 'multi-step',
    messages: [{ role: 'user', content: 'Follow up on N-3' }],
    actor: writer,
    approve: 'after_preview',
    expect: { sequence: ['note.preview', 'note.record'] },
  }),
];

/**
 * A deterministic fake model: what it does depends only on the request, so
 * every trial has one right answer whatever the scheduling. It waits a
 * pseudo-random time first, so concurrent trials interleave.
 */
const model: ScriptFunction = async (request, key) => {
  await new Promise((resolve) => setTimeout(resolve, (key!.trial * 7 + key!.turn * 3 + request.messages.length) % 5));
  const user = request.messages.find((message) => message.role === 'user')!.content as string;
  const note = /N-\d/.exec(user)?.[0];
  const wide = request.tools[0]!.name === 'note_operation';
  const call = (action: 'get' | 'preview' | 'record', payload: Record<string, unknown>) =>
    wide
      ? callTurn('note_operation', { operation: action, payload }, `c${key!.turn}`)
      : callTurn(
          { get: 'get_note', preview: 'preview_followup', record: 'record_followup' }[action],
          payload,
          `c${key!.turn}`,
        );
  if (!note) return textTurn('Hello!');
  if (user.startsWith('Read')) return key!.turn === 0 ? call('get', { note_id: note }) : textTurn(`read ${note}`);
  // Follow-ups: preview, then record (trial number in the note so trials differ), then answer.
  const text = `Followed up (trial ${key!.trial})`;
  if (key!.turn === 0) return call('preview', { note_id: note, text });
  if (key!.turn === 1) return call('record', { note_id: note, text, action_id: `a-${key!.trial}` });
  return { ...textTurn('Recorded.'), usage: { input_tokens: 10 * key!.trial, output_tokens: 1 }, latency_ms: 5 };
};

const dirs: string[] = [];
function tempRun(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-run-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function records(dir: string): Promise<TrialRecord[]> {
  const list: TrialRecord[] = [];
  for await (const record of readTrials(dir)) list.push(record);
  return list;
}

/** Records keyed by identity, without what legitimately differs between runs (wall-clock times). */
function comparable(list: TrialRecord[]): Record<string, unknown> {
  const entries = list.map((record) => {
    const { started_at: _started, ...rest } = record;
    return [
      `${record.provider}/${record.model}/${record.surface}/${record.task}/${record.trial}`,
      { ...rest, calls: rest.calls.map((call) => ({ ...call, latency_ms: 0 })) },
    ] as const;
  });
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

function plan(trials = 3, provider = new ScriptedProvider(model)) {
  return planTrials([notesRunDomain(tasks)], [provider], { split: 'all', trials });
}

describe('planTrials', () => {
  it('plans providers × surfaces × tasks × trials with stable identities', () => {
    const planned = plan(2);
    expect(planned).toHaveLength(2 * 4 * 2);
    expect(new Set(planned.map((trial) => trial.identity)).size).toBe(planned.length);
    expect(planned[0]!.identity).toBe(JSON.stringify(['scripted', 'scripted', 'notes', 'typed', 'read-1', 0]));
  });

  it('filters by split, surface and task glob; shards partition the plan', () => {
    const domains = [notesRunDomain(tasks)];
    const providers = [new ScriptedProvider(model)];
    expect(planTrials(domains, providers, { split: 'heldout', trials: 1 }).map((trial) => trial.task.id)).toEqual([
      'hello',
      'hello',
    ]);
    expect(
      planTrials(domains, providers, { split: 'all', trials: 1, surfaces: ['wide'], task: 'follow-*' }).map(
        (trial) => `${trial.surface.id}/${trial.task.id}`,
      ),
    ).toEqual(['wide/follow-2', 'wide/follow-3']);
    const all = planTrials(domains, providers, { split: 'all', trials: 3 }).map((trial) => trial.identity);
    const shards = [1, 2, 3].flatMap((index) =>
      planTrials(domains, providers, { split: 'all', trials: 3, shard: `${index}/3` }).map((trial) => trial.identity),
    );
    expect(shards.sort()).toEqual([...all].sort());
  });

  it('names an unknown surface, an empty selection and a bad shard as ConfigErrors', () => {
    const domains = [notesRunDomain(tasks)];
    const providers = [new ScriptedProvider(model)];
    expect(() => planTrials(domains, providers, { split: 'all', trials: 1, surfaces: ['wid'] })).toThrow(
      /unknown surface "wid".*did you mean wide/,
    );
    expect(() => planTrials(domains, providers, { split: 'all', trials: 1, task: 'nope*' })).toThrow(ConfigError);
    expect(() => parseShard('4/3')).toThrow(/i\/n/);
  });
});

describe('executeRun', () => {
  it('appends one scored line per trial and reports what it did', async () => {
    const dir = tempRun();
    const outcome = await executeRun({
      runDir: dir,
      plan: plan(2),
      concurrency: 4,
      finish: (record) => ({ ...record, success: record.calls.length > 0 }),
    });
    expect(outcome).toEqual({
      planned: 16,
      skipped: 0,
      ran: 16,
      errored: 0,
      repairedBytes: 0,
      interrupted: false,
      stopped: null,
    });
    const lines = readFileSync(path.join(dir, RUN_FILES.trials), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(16);
    const list = await records(dir);
    expect(list.filter((record) => record.task === 'hello').every((record) => record.success === false)).toBe(true);
    const follow = list.find(
      (record) => record.task === 'follow-2' && record.surface === 'typed' && record.trial === 1,
    )!;
    expect(follow.final_state).toEqual({ followup_count: 1, followups: { 'N-2': ['Followed up (trial 1)'] } });
  });

  it('concurrency 8 and 1 give identical records (no state shared between trials)', async () => {
    const serial = tempRun();
    const parallel = tempRun();
    await executeRun({ runDir: serial, plan: plan(4), concurrency: 1 });
    await executeRun({ runDir: parallel, plan: plan(4), concurrency: 8 });
    const a = await records(serial);
    const b = await records(parallel);
    expect(b).toHaveLength(32);
    expect(comparable(b)).toEqual(comparable(a));
    // Each follow-up trial saw only its own write.
    for (const record of b.filter((item) => item.kind === 'multi-step'))
      expect(record.final_state.followup_count).toBe(1);
  });

  it('resume after a crash mid-run (torn last line) ends with the trials of an uninterrupted run', async () => {
    const reference = tempRun();
    await executeRun({ runDir: reference, plan: plan(3), concurrency: 4 });

    const crashed = tempRun();
    const stop = new AbortController();
    let done = 0;
    const first = await executeRun({
      runDir: crashed,
      plan: plan(3),
      concurrency: 2,
      stop: stop.signal,
      onTrialDone: () => (++done === 7 ? stop.abort() : undefined),
    });
    expect(first.interrupted).toBe(true);
    // Simulate a kill during the next write: half a line at the end of the file.
    const file = path.join(crashed, RUN_FILES.trials);
    const whole = readFileSync(file, 'utf8');
    const lastLine = whole.trimEnd().split('\n').at(-1)!;
    appendFileSync(file, lastLine.slice(0, Math.floor(lastLine.length / 2)));
    // A torn line in the middle of a longer line is also just dropped.
    const beforeResume = (await records(crashed)).length;
    expect(beforeResume).toBe(first.ran);

    const second = await executeRun({ runDir: crashed, plan: plan(3), concurrency: 4 });
    expect(second.repairedBytes).toBe(Math.floor(lastLine.length / 2));
    expect(second.skipped).toBe(first.ran);
    expect(second.skipped + second.ran).toBe(24);
    const resumed = await records(crashed);
    expect(resumed).toHaveLength(24);
    expect(comparable(resumed)).toEqual(comparable(await records(reference)));
  });

  it('a resumed run that is already complete runs nothing', async () => {
    const dir = tempRun();
    await executeRun({ runDir: dir, plan: plan(1), concurrency: 2 });
    const again = await executeRun({ runDir: dir, plan: plan(1), concurrency: 2 });
    expect(again).toMatchObject({ ran: 0, skipped: 8, interrupted: false });
  });

  it('provider failures are errored trials, and the run goes on', async () => {
    const dir = tempRun();
    const flaky = new ScriptedProvider(async (request, key) => {
      if (key!.task === 'hello') throw new Error('socket hang up');
      return model(request, key);
    });
    const outcome = await executeRun({ runDir: dir, plan: plan(1, flaky), concurrency: 3 });
    expect(outcome.errored).toBe(2);
    const errored = (await records(dir)).filter((record) => record.status === 'errored');
    expect(errored.map((record) => record.error?.message)).toEqual(['socket hang up', 'socket hang up']);
  });
});
