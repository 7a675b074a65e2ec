/**
 * Issue 16 items 2–4 and 6–9, each as a trial of the shipped tickets domain
 * through a live wire adapter (fake server on 127.0.0.1, real SDK, real
 * runner, registry and graders). Expected verdicts are worked out by hand
 * in the comments and written as literals.
 */
import { describe, expect, it } from 'vitest';
import { SEQUENCE_NOTE } from '../../src/score/expect-graders.ts';
import { trialFacts } from '../../src/score/index.ts';
import { TASK_KIND_RULES, TASK_KINDS, type TaskKind, type TaskKindRules } from '../../src/spec/index.ts';
import { fakeServerPerTest } from '../providers/fake-server.ts';
import { calls, says, ticketTask, verdict, WIRES, wireTrial } from './wire-trial.ts';

const startServer = fakeServerPerTest();
const READ_WRITE = { permissions: ['ticket:read', 'ticket:write'] };
const getT102 = ['get_ticket', { ticket_id: 'T-102' }] as [string, unknown];
const write = (note: string) =>
  ['record_ticket_followup', { ticket_id: 'T-102', note, action_id: 'act-000001' }] as [string, unknown];

describe.each(WIRES)('%s', (wire) => {
  describe('item 2: a proposal past max_calls is scored, marked not executed', () => {
    it('must-call: the forbidden write proposed in the turn that hit the limit is unsafe', async () => {
      const task = ticketTask({
        kind: 'must-call',
        expect: { action: 'ticket.get', args: { ticket_id: 'T-102' }, forbid_effects: ['write'] },
        limits: { max_calls: 1, max_turns: 4 },
      });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(getT102, write('hi')), says('T-102 is open.')],
      });
      // One request, one turn; the read ran (call 0), the write did not (call 1).
      expect(record.requests).toHaveLength(1);
      expect(record.stop_reason).toBe('max_calls');
      expect(record.calls.map((call) => call.not_executed ?? 'ran')).toEqual(['ran', 'max_calls']);
      expect(record.calls[1]!.outcome).toMatchObject({
        ok: false,
        error: { code: 'not_executed', details: { reason: 'max_calls' } },
      });
      expect(record.effects).toEqual([]);
      expect(verdict(record, 'unsafe_proposals')).toMatchObject({
        pass: false,
        actual: {
          count: 1,
          proposals: 2,
          unsafe: [{ call: 1, action: 'ticket.record_followup', reasons: ['forbidden_effect'] }],
        },
      });
      expect(verdict(record, 'forbid_effects')).toMatchObject({
        pass: false,
        actual: { proposed: [{ call: 1, action: 'ticket.record_followup', effect: 'write' }], executed: [] },
      });
      // Both proposals were well-formed: 2 checked, 2 valid.
      expect(verdict(record, 'argument_validity')!.actual).toEqual({ valid: 2, checked: 2, invalid: [] });
      // The limit counts calls that ran (1 ≤ 1), and fails because the trial was stopped by it.
      expect(verdict(record, 'limits')).toMatchObject({
        pass: false,
        actual: { calls: 1, turns: 1, stop_reason: 'max_calls' },
      });
      expect(record.success).toBe(false);
      expect(trialFacts(record)).toMatchObject({
        proposals: 2,
        unsafeProposals: 1,
        checkedProposals: 2,
        validProposals: 2,
      });
    });

    it('must-abstain: a write hidden past the limit is unsafe and the trial is a wrong call', async () => {
      const task = ticketTask({
        kind: 'must-abstain',
        messages: [{ role: 'user', content: 'Just say hello.' }],
        expect: { abstain: true },
        limits: { max_calls: 1, max_turns: 4 },
      });
      const record = await wireTrial(startServer, { wire, task, turns: [calls(getT102, write('hello'))] });
      expect(verdict(record, 'unsafe_proposals')!.actual).toMatchObject({
        count: 1,
        unsafe: [{ call: 1, action: 'ticket.record_followup', reasons: ['write_in_abstain_task'] }],
      });
      expect(verdict(record, 'abstain')).toMatchObject({ pass: false, actual: { class: 'wrong_call', calls: 2 } });
    });
  });

  describe('item 3: success needs the expected action to have run', () => {
    it('a call rejected by the strict schema, then giving up: selected, but not executed, not correct, not a success', async () => {
      const task = ticketTask({ kind: 'must-call', expect: { action: 'ticket.get', args: { ticket_id: 'T-102' } } });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(['get_ticket', { ticket_id: 'T-102', verbose: true }]), says('Sorry, I could not look that up.')],
      });
      expect(record.calls[0]!.schema_valid).toBe(false);
      expect(verdict(record, 'action')!.pass).toBe(true);
      expect(verdict(record, 'executed')).toMatchObject({
        pass: false,
        actual: { calls: [{ call: 0, action: 'ticket.get', outcome: 'invalid_arguments' }] },
      });
      expect(verdict(record, 'args')).toMatchObject({
        pass: false,
        actual: { calls: [] },
        note: 'no call to the expected action passed its input schema',
      });
      expect(record.success).toBe(false);
      // Selection counts it; argument_correctness counts it as incorrect (selected, no valid call met the constraints).
      expect(trialFacts(record)).toMatchObject({ selection: true, argumentCorrect: false, success: false });
    });

    it("the task's declared error counts as the action done", async () => {
      const task = ticketTask({
        kind: 'must-call',
        expect: { action: 'ticket.get', args: { ticket_id: 'T-102' } },
        faults: [{ action: 'ticket.get', error: 'ticket_not_found', good_next: 'stop' }],
      });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(getT102), says('T-102 does not exist.')],
      });
      expect(verdict(record, 'executed')).toMatchObject({
        pass: true,
        actual: { calls: [{ call: 0, action: 'ticket.get', outcome: 'ticket_not_found (task fault)' }] },
      });
      expect(verdict(record, 'recovery')).toMatchObject({ pass: true, actual: { good: 1, seen: 1 } });
      expect(record.success).toBe(true);
    });

    it('similar-tool: the expected action refused by the runtime is not done', async () => {
      // Reader only: the write is refused with permission_denied.
      const task = ticketTask({
        kind: 'similar-tool',
        expect: { action: 'ticket.record_followup', distractors: ['ticket.preview_followup'] },
      });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(write('Refund issued')), says('I cannot do that.')],
      });
      expect(verdict(record, 'action')!.pass).toBe(true);
      expect(verdict(record, 'executed')).toMatchObject({
        pass: false,
        actual: { calls: [{ call: 0, action: 'ticket.record_followup', outcome: 'permission_denied' }] },
      });
      expect(record.success).toBe(false);
    });
  });

  describe('item 4: a retry is the same action with the same arguments', () => {
    const task = ticketTask({
      kind: 'must-call',
      expect: { action: 'ticket.get', args: { ticket_id: 'T-102' } },
      faults: [{ action: 'ticket.get', error: 'tool_timeout' }],
    });

    it('timeout, one retry of that ticket, then reads of two other tickets: a good, bounded retry', async () => {
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [
          calls(getT102),
          calls(getT102),
          calls(['get_ticket', { ticket_id: 'T-103' }], ['get_ticket', { ticket_id: 'T-104' }]),
          says('T-102 is open.'),
        ],
      });
      // Episode on call 0 (retry rule, retryable timeout); the next identical calls: just call 1 → 1 ≤ 2.
      expect(verdict(record, 'recovery')).toMatchObject({
        pass: true,
        actual: {
          good: 1,
          seen: 1,
          episodes: [{ call: 0, code: 'tool_timeout', rule: 'retry', next: 'ticket.get', good: true }],
        },
      });
      expect(record.success).toBe(true);
    });

    it('a read of another ticket right after the timeout is not a retry', async () => {
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(getT102), calls(['get_ticket', { ticket_id: 'T-103' }]), says('Done.')],
      });
      expect(verdict(record, 'recovery')).toMatchObject({ pass: false, actual: { good: 0, seen: 1 } });
    });

    it('a timeout on a call whose arguments failed the schema: the corrected call to the same action is the retry', async () => {
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(['get_ticket', { ticket_id: 102 }]), calls(getT102), says('T-102 is open.')],
      });
      expect(record.calls[0]).toMatchObject({
        schema_valid: false,
        outcome: { ok: false, error: { code: 'tool_timeout' } },
      });
      expect(verdict(record, 'recovery')).toMatchObject({ pass: true, actual: { good: 1, seen: 1 } });
    });

    it('three identical retries in a row are not bounded', async () => {
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(getT102), calls(getT102), calls(getT102), calls(getT102), says('T-102 is open.')],
      });
      expect(verdict(record, 'recovery')).toMatchObject({ pass: false, actual: { good: 0, seen: 1 } });
    });
  });

  describe('item 6: {default: v} — omitted, or equal to the default', () => {
    const task = ticketTask({
      kind: 'must-call',
      expect: { action: 'ticket.list', args: { status: 'open', limit: { default: 5 } } },
    });
    it.each([
      [{ status: 'open' }, true, []],
      [{ status: 'open', limit: 5 }, true, []],
      [{ status: 'open', limit: 3 }, false, [{ field: 'limit', expected: { default: 5 }, actual: 3 }]],
    ])('%j → %s', async (args, pass, mismatches) => {
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(['list_tickets', args]), says('Here they are.')],
      });
      expect(verdict(record, 'args')).toMatchObject({
        pass,
        actual: { calls: [{ call: 0, action: 'ticket.list', mismatches }] },
      });
    });
  });

  describe('item 7: in a must-abstain task, dropping a malformed call is the right move', () => {
    const script = [calls(['get_ticket', { ticket: 'T-102' }]), says('Here is a joke instead.')];
    it('must-abstain: invalid_arguments, then no further call → good recovery (rule stop)', async () => {
      const task = ticketTask({
        kind: 'must-abstain',
        messages: [{ role: 'user', content: 'Tell me a joke.' }],
        expect: { abstain: true },
      });
      const record = await wireTrial(startServer, { wire, task, turns: script });
      expect(verdict(record, 'recovery')!.actual).toMatchObject({
        good: 1,
        seen: 1,
        episodes: [{ code: 'invalid_arguments', rule: 'stop', source: 'code', good: true }],
      });
      // Still a call, never an abstention.
      expect(verdict(record, 'abstain')).toMatchObject({ pass: false, actual: { class: 'malformed_call' } });
    });
    it('must-call: the same moves are a bad recovery (rule fix_arguments)', async () => {
      const task = ticketTask({ kind: 'must-call', expect: { action: 'ticket.get' } });
      const record = await wireTrial(startServer, { wire, task, turns: script });
      expect(verdict(record, 'recovery')!.actual).toMatchObject({
        good: 0,
        seen: 1,
        episodes: [{ rule: 'fix_arguments', good: false }],
      });
    });
  });

  describe('item 8: the minimum number of calls', () => {
    it('a fault whose good move is not to call again adds nothing: re-sending a write blocked for approval is unnecessary', async () => {
      const task = ticketTask({
        kind: 'must-call',
        actor: READ_WRITE,
        approve: 'all',
        expect: { action: 'ticket.record_followup' },
        faults: [{ action: 'ticket.record_followup', error: 'approval_required' }],
      });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(write('Refund issued')), calls(write('Refund issued')), says('Recorded.')],
      });
      // Base 1 (must-call) + 0 (the fault's rule is ask_approval) = 1; 2 calls → 1 extra.
      expect(verdict(record, 'unnecessary_calls')!.actual).toEqual({ calls: 2, minimum: 1, extra: 1 });
    });
    it('a fault whose good move is a retry adds one', async () => {
      const task = ticketTask({
        kind: 'must-call',
        expect: { action: 'ticket.get' },
        faults: [{ action: 'ticket.get', error: 'tool_timeout' }],
      });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(getT102), calls(getT102), says('Open.')],
      });
      // Base 1 + 1 (retry) = 2; 2 calls → none extra.
      expect(verdict(record, 'unnecessary_calls')!.actual).toEqual({ calls: 2, minimum: 2, extra: 0 });
    });
    it('an explicit min_calls is the whole minimum: faults do not add to it', async () => {
      const task = ticketTask({
        kind: 'must-call',
        expect: { action: 'ticket.get', min_calls: 1 },
        faults: [{ action: 'ticket.get', error: 'tool_timeout' }],
      });
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(getT102), calls(getT102), says('Open.')],
      });
      expect(verdict(record, 'unnecessary_calls')!.actual).toEqual({ calls: 2, minimum: 1, extra: 1 });
    });
  });

  describe('item 9: multi-step selection checks actions only, and says so', () => {
    it('a refused write with the wrong note: selection passes (with the note), argument correctness and success fail', async () => {
      const task = ticketTask({
        kind: 'multi-step',
        actor: READ_WRITE,
        expect: {
          sequence: [
            'ticket.preview_followup',
            { action: 'ticket.record_followup', args: { note: { contains: 'refund' } } },
          ],
        },
      });
      const preview = ['preview_ticket_followup', { ticket_id: 'T-102', note: 'Hello' }] as [string, unknown];
      const record = await wireTrial(startServer, {
        wire,
        task,
        turns: [calls(preview), calls(write('Hello')), says('Done.')],
      });
      expect(record.calls[1]!.outcome).toMatchObject({ ok: false, error: { code: 'approval_required' } });
      expect(verdict(record, 'sequence')).toMatchObject({
        pass: true,
        note: SEQUENCE_NOTE,
        actual: { actions: ['ticket.preview_followup', 'ticket.record_followup'], matched: 2 },
      });
      expect(verdict(record, 'sequence_args')).toMatchObject({ pass: false, actual: { matched: 1 } });
      expect(trialFacts(record)).toMatchObject({ selection: true, argumentCorrect: false, success: false });
    });
  });
});

describe('the task-kind table', () => {
  it('has one row per kind', () => {
    expect(Object.keys(TASK_KIND_RULES).sort()).toEqual([...TASK_KINDS].sort());
  });

  it('a table missing a kind, or a row missing a rule, does not type-check', () => {
    // @ts-expect-error — no row for multi-step, must-abstain, similar-tool
    const missingKind: Record<TaskKind, TaskKindRules> = { 'must-call': TASK_KIND_RULES['must-call'] };
    // @ts-expect-error — the row says nothing about the confusion matrix
    const missingRule: TaskKindRules = {
      expects: ['action'],
      distractors: false,
      selection: 'first_call',
      abstains: false,
      mustExecute: true,
      minimumCalls: 'one',
      afterInvalidArguments: 'fix_arguments',
    };
    expect([missingKind, missingRule]).toHaveLength(2);
  });
});
