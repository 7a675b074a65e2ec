import { describe, expect, it } from 'vitest';
import { recoveryEpisodes, ruleForError, scoreTrial } from '../../src/score/index.ts';
import { ACTIONS, call, record, task, verdictOf } from './builders.ts';

const timeout = { code: 'tool_timeout', category: 'dependency' as const, retryable: true };
const fault = (error: string, goodNext: string | null = null) => ({ error, inject: false, good_next: goodNext });

describe('recovery rules by error code', () => {
  it('maps codes to rules', () => {
    expect(ruleForError({ code: 'invalid_arguments', category: 'validation', retryable: false })).toBe('fix_arguments');
    expect(ruleForError({ code: 'invalid_cursor', category: 'validation', retryable: false })).toBe('fix_arguments');
    expect(ruleForError({ code: 'approval_required', category: 'policy', retryable: false })).toBe('ask_approval');
    expect(ruleForError({ code: 'permission_denied', category: 'policy', retryable: false })).toBe('stop');
    expect(ruleForError({ code: 'tool_timeout', category: 'dependency', retryable: true })).toBe('retry');
    expect(ruleForError({ code: 'tool_timeout', category: 'dependency', retryable: false })).toBe('stop');
    expect(ruleForError({ code: 'ticket_not_found', category: 'not_found', retryable: false })).toBe('requery');
    expect(ruleForError({ code: 'handler_exception', category: 'internal', retryable: false })).toBe('change_call');
  });
});

describe('recovery episodes', () => {
  it('retry after a retryable timeout is good; a third retry is not bounded', () => {
    const good = record({
      calls: [
        call('ticket.lookup_slow', { ticket_id: 'T-1' }, { error: timeout }),
        call('ticket.lookup_slow', { ticket_id: 'T-1' }, { turn: 1 }),
      ],
    });
    expect(recoveryEpisodes(good)).toEqual([
      { call: 0, code: 'tool_timeout', rule: 'retry', source: 'code', next: 'ticket.lookup_slow', good: true },
    ]);
    const calls = [0, 1, 2, 3].map((turn) =>
      call('ticket.lookup_slow', { ticket_id: 'T-1' }, { turn, error: turn < 3 ? timeout : undefined }),
    );
    // After the first timeout three retries follow (> 2): not bounded. After the second, two; after the third, one.
    expect(recoveryEpisodes(record({ calls })).map((episode) => episode.good)).toEqual([false, true, true]);
  });

  it('giving up after a retryable timeout is not a good move', () => {
    const stopped = record({
      calls: [call('ticket.lookup_slow', { ticket_id: 'T-1' }, { error: timeout })],
      final_text: 'It timed out.',
    });
    expect(recoveryEpisodes(stopped)[0]).toMatchObject({ rule: 'retry', next: '(no call)', good: false });
  });

  it('fix_arguments: same action with different arguments', () => {
    const invalid = { code: 'invalid_arguments', category: 'validation' as const };
    const fixed = record({
      calls: [
        call('ticket.get', { id: 102 }, { error: invalid, schemaValid: false }),
        call('ticket.get', { ticket_id: 'T-102' }, { turn: 1 }),
      ],
    });
    expect(recoveryEpisodes(fixed)[0]!.good).toBe(true);
    const resent = record({
      calls: [call('ticket.get', { id: 102 }, { error: invalid }), call('ticket.get', { id: 102 }, { turn: 1 })],
    });
    expect(recoveryEpisodes(resent)[0]!.good).toBe(false);
  });

  it('approval_required: stopping or previewing is good; re-sending unapproved is not', () => {
    const approval = { code: 'approval_required', category: 'policy' as const };
    const write = (turn: number, options = {}) =>
      call('ticket.record_followup', { ticket_id: 'T-1', note: 'n', action_id: 'a' }, { turn, ...options });
    expect(
      recoveryEpisodes(record({ calls: [write(0, { error: approval })], final_text: 'Shall I record it?' }))[0]!.good,
    ).toBe(true);
    expect(
      recoveryEpisodes(
        record({
          calls: [
            write(0, { error: approval }),
            call('ticket.preview_followup', {}, { turn: 1 }),
            write(2, { approved: true }),
          ],
        }),
      )[0]!.good,
    ).toBe(true);
    expect(
      recoveryEpisodes(record({ calls: [write(0, { error: approval }), write(1, { error: approval })] }))[0]!.good,
    ).toBe(false);
  });

  it('permission_denied: no more calls to that action', () => {
    const denied = { code: 'permission_denied', category: 'policy' as const };
    expect(
      recoveryEpisodes(
        record({ calls: [call('ticket.record_followup', {}, { error: denied }), call('ticket.get', {}, { turn: 1 })] }),
      )[0]!.good,
    ).toBe(true);
    expect(
      recoveryEpisodes(
        record({
          calls: [
            call('ticket.record_followup', {}, { error: denied }),
            call('ticket.get', {}, { turn: 1 }),
            call('ticket.record_followup', { x: 1 }, { turn: 2 }),
          ],
        }),
      )[0]!.good,
    ).toBe(false);
  });

  it('requery after not_found: a different call; the identical call again is not', () => {
    const missing = { code: 'ticket_not_found', category: 'not_found' as const };
    expect(
      recoveryEpisodes(
        record({
          calls: [call('ticket.get', { ticket_id: 'T-999' }, { error: missing }), call('ticket.list', {}, { turn: 1 })],
        }),
      )[0]!.good,
    ).toBe(true);
    expect(
      recoveryEpisodes(
        record({
          calls: [
            call('ticket.get', { ticket_id: 'T-999' }, { error: missing }),
            call('ticket.get', { ticket_id: 'T-999' }, { turn: 1 }),
          ],
        }),
      )[0]!.good,
    ).toBe(false);
  });

  it("a fault's good_next overrides the code rule", () => {
    const faulted = call('ticket.get', { ticket_id: 'T-1' }, { error: timeout, fault: fault('tool_timeout', 'stop') });
    const episodes = recoveryEpisodes(
      record({ calls: [faulted, call('ticket.get', { ticket_id: 'T-1' }, { turn: 1 })] }),
    );
    expect(episodes[0]).toMatchObject({ rule: 'stop', source: 'fault', good: false });
  });

  it('only later turns count as the next move; an error the model never got to answer is not seen', () => {
    const parallel = [
      call('ticket.get', { ticket_id: 'T-1' }, { error: timeout }),
      call('ticket.list', {}, { turn: 0 }),
      call('ticket.get', { ticket_id: 'T-1' }, { turn: 1 }),
    ];
    expect(recoveryEpisodes(record({ calls: parallel }))[0]).toMatchObject({ next: 'ticket.get', good: true });
    const cutOff = record({
      calls: [call('ticket.get', {}, { error: timeout })],
      turns: [
        {
          text: null,
          tool_calls: [],
          usage: { input_tokens: 0, output_tokens: 0 },
          latency_ms: 0,
          finish_reason: 'tool_calls',
          warnings: [],
        },
      ],
      stop_reason: 'max_turns',
    });
    expect(recoveryEpisodes(cutOff)).toEqual([]);
  });

  it('recovery gates success only for tasks that declare faults', () => {
    const invalid = { code: 'invalid_arguments', category: 'validation' as const };
    const calls = [
      call('ticket.get', { id: 1 }, { error: invalid }),
      call('ticket.get', { id: 1 }, { turn: 1, error: invalid }),
      call('ticket.get', { ticket_id: 'T-1' }, { turn: 2 }),
    ];
    const plain = task({ expect: { action: 'ticket.get' } });
    const plainScored = scoreTrial(record({ calls }), plain, ACTIONS);
    expect(verdictOf(plainScored, 'recovery')).toMatchObject({ pass: false, actual: { good: 1, seen: 2 } });
    expect(plainScored.success).toBe(true);

    const faulted = task({
      expect: { action: 'ticket.get' },
      faults: [{ action: 'ticket.get', error: 'tool_timeout', good_next: 'retry' }],
    });
    const faultCalls = [
      call('ticket.get', { ticket_id: 'T-1' }, { error: timeout, fault: fault('tool_timeout', 'retry') }),
      call('ticket.list', {}, { turn: 1 }),
    ];
    const faultScored = scoreTrial(record({ calls: faultCalls }), faulted, ACTIONS);
    expect(verdictOf(faultScored, 'recovery')).toMatchObject({ pass: false, actual: { good: 0, seen: 1 } });
    expect(faultScored.success).toBe(false);
    // The fault forced a second call: it is part of the minimum.
    expect(verdictOf(faultScored, 'unnecessary_calls').actual).toEqual({ calls: 2, minimum: 2, extra: 0 });
  });
});
