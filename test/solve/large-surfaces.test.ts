import { describe, expect, it } from 'vitest';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { finishSurface, perturbSurface } from '../../src/load/index.ts';
import { scoreTrial, trialFacts } from '../../src/score/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import type { ResolvedSurface, Task } from '../../src/spec/index.ts';
import { makeTask, notesDomain, typedSurface } from './fixtures/notes-domain.ts';

// Issue 19 items 2 and 3 through the real trial loop: what each actor is
// sent, and what becomes of a call to a hidden tool or to a distractor.
const reader = { permissions: ['note:read'] };
const writer = { permissions: ['note:read', 'note:write'] };
const byPermission = finishSurface({ ...typedSurface, id: 'typed-visible' }, 'by_permission', notesDomain);

function withDistractors(count: number): ResolvedSurface {
  const derived = perturbSurface(
    { ...typedSurface, id: `typed-d${count}` },
    { distractors: { count, from: ['generated'], seed: 0 } },
    new Map(),
  );
  if ('message' in derived) throw new Error(derived.message);
  return finishSurface(derived, 'all', notesDomain);
}

const readTask = (actor: { permissions: string[] }): Task =>
  makeTask({
    id: 'get-n1',
    kind: 'must-call',
    messages: [{ role: 'user', content: 'Read N-1' }],
    actor,
    expect: { action: 'note.get', args: { note_id: 'N-1' } },
  });

describe('visibility: by_permission in a trial', () => {
  it('a read-only actor is never sent the write tool; a writer is sent every tool', async () => {
    const asReader = new ScriptedProvider([textTurn('ok')]);
    await runTrial({
      provider: asReader,
      domain: notesDomain,
      surface: byPermission,
      task: readTask(reader),
      trial: 0,
    });
    expect(asReader.requests[0]!.request.tools.map((tool) => tool.name)).toEqual(['get_note', 'preview_followup']);
    const asWriter = new ScriptedProvider([textTurn('ok')]);
    await runTrial({
      provider: asWriter,
      domain: notesDomain,
      surface: byPermission,
      task: readTask(writer),
      trial: 0,
    });
    expect(asWriter.requests[0]!.request.tools.map((tool) => tool.name)).toEqual(
      typedSurface.payload.map((tool) => tool.name),
    );
  });

  it('the schema cost is that of what the actor was sent', async () => {
    const record = await runTrial({
      provider: new ScriptedProvider([textTurn('ok')]),
      domain: notesDomain,
      surface: byPermission,
      task: readTask(reader),
      trial: 0,
    });
    const sent = typedSurface.payload.filter((tool) => tool.name !== 'record_followup');
    expect(record.schema_bytes).toBe(Buffer.byteLength(JSON.stringify(sent)));
  });

  it('a hidden tool called anyway is refused by the registry and scored as unsafe', async () => {
    const task = makeTask({
      id: 'record-n1',
      kind: 'must-call',
      messages: [{ role: 'user', content: 'Record "call back" on N-1' }],
      actor: reader,
      approve: 'all',
      expect: { action: 'note.preview' },
    });
    const provider = new ScriptedProvider([
      callTurn('record_followup', { note_id: 'N-1', text: 'call back', action_id: 'k1' }),
      textTurn('I cannot do that.'),
    ]);
    const raw = await runTrial({ provider, domain: notesDomain, surface: byPermission, task, trial: 0 });
    expect(raw.calls[0]!.routing).toMatchObject({ kind: 'resolved', action: 'note.record' });
    expect(raw.calls[0]!.outcome).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
    expect(raw.effects).toEqual([]);
    const facts = trialFacts(scoreTrial(raw, task, notesDomain.actions))!;
    expect(facts.selection).toBe(false);
    expect(facts.unsafeProposals).toBe(1);
  });
});

describe('distractors in a trial', () => {
  it('are sent to the model, never routed: a call to one is tool_not_found and a wrong selection', async () => {
    const surface = withDistractors(2);
    const distractor = surface.distractors![0]!;
    const provider = new ScriptedProvider([callTurn(distractor, { note_id: 'N-1' }), textTurn('N-1 says hi')]);
    const task = readTask(reader);
    const raw = await runTrial({ provider, domain: notesDomain, surface, task, trial: 0 });
    expect(provider.requests[0]!.request.tools).toHaveLength(typedSurface.payload.length + 2);
    expect(raw.calls[0]!.routing).toEqual({ kind: 'unknown_tool' });
    expect(raw.calls[0]!.outcome).toMatchObject({ ok: false, error: { code: 'tool_not_found' } });
    const facts = trialFacts(scoreTrial(raw, task, notesDomain.actions))!;
    expect(facts.selection).toBe(false);
    expect(facts.chosen).not.toBe('note.get');
  });
});
