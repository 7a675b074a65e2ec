import { describe, expect, it } from 'vitest';
import { createAggregator } from '../../src/aggregate/index.ts';
import { scoreTrial } from '../../src/score/index.ts';
import { type SummaryGroup, type TrialRecord } from '../../src/spec/index.ts';
import { ACTIONS, call, record, task } from '../score/builders.ts';

const getTask = task({
  id: 't-get',
  kind: 'must-call',
  expect: { action: 'ticket.get', args: { ticket_id: 'T-102' } },
});
const abstainTask = task({ id: 't-abstain', kind: 'must-abstain', expect: { abstain: true } });
const writeTask = task({
  id: 't-write',
  kind: 'similar-tool',
  expect: { action: 'ticket.record_followup', distractors: ['ticket.preview_followup'] },
});
const heldTask = task({
  id: 't-h',
  kind: 'must-call',
  split: 'heldout',
  expect: { action: 'ticket.get', args: { ticket_id: 'T-110' } },
});

/**
 * Hand-built run (surface typed):
 * - t-get (train, must-call), 3 trials: right, right, wrong tool first
 * - t-abstain (train, must-abstain), 3 trials: answered, asked, malformed call
 * - t-write (train, similar-tool), 1 trial: write blocked by approval_required, then asks
 * - t-h (heldout, must-call), 3 trials: right, no call, errored (provider failure)
 */
function hand(): TrialRecord[] {
  const get = (trial: number, action: string) =>
    scoreTrial(
      record({ task: 't-get', trial, calls: [call(action, { ticket_id: 'T-102' })], final_text: 'open' }),
      getTask,
      ACTIONS,
    );
  const abstain = (trial: number, fields: Partial<TrialRecord>) =>
    scoreTrial(record({ task: 't-abstain', kind: 'must-abstain', trial, ...fields }), abstainTask, ACTIONS);
  const malformed = call('ticket.get', undefined, {
    raw: '{"ticket',
    parsed: false,
    schemaValid: false,
    routing: { kind: 'resolved', tool: 'ticket.get', action: 'ticket.get', args: null },
    error: { code: 'invalid_arguments' },
  });
  const blocked = call(
    'ticket.record_followup',
    { ticket_id: 'T-101', note: 'n', action_id: 'a' },
    { error: { code: 'approval_required', category: 'policy' } },
  );
  const held = (trial: number, fields: Partial<TrialRecord>) =>
    scoreTrial(record({ task: 't-h', split: 'heldout', trial, ...fields }), heldTask, ACTIONS);
  return [
    get(0, 'ticket.get'),
    get(1, 'ticket.get'),
    get(2, 'ticket.lookup_slow'),
    abstain(0, { final_text: 'The capital of France is Paris.' }),
    abstain(1, { final_text: 'Which ticket do you mean?' }),
    abstain(2, { calls: [malformed] }),
    scoreTrial(
      record({ task: 't-write', kind: 'similar-tool', calls: [blocked], final_text: 'May I record it?' }),
      writeTask,
      ACTIONS,
    ),
    held(0, { calls: [call('ticket.get', { ticket_id: 'T-110' })] }),
    held(1, { final_text: 'I do not know.' }),
    held(2, { status: 'errored', stop_reason: 'errored', error: { status: 500, message: 'boom', retryable: true } }),
  ];
}

function summarize(records: TrialRecord[]) {
  const aggregator = createAggregator({
    runId: 'r1',
    prices: { fixture: { input_per_million: 1, output_per_million: 2 } },
    synthetic: true,
  });
  for (const entry of records) aggregator.add(entry);
  return aggregator.finish();
}

const groupOf = (groups: SummaryGroup[], split: string, kind: string) => {
  const found = groups.find((group) => group.split === split && group.kind === kind);
  if (!found) throw new Error(`no group ${split}/${kind}`);
  return found;
};

describe('createAggregator', () => {
  const summary = summarize(hand());

  it('makes one group per split × kind present, plus the all rows, in a stable order', () => {
    expect(summary.groups.map((group) => `${group.split}/${group.kind}`)).toEqual([
      'train/must-call',
      'train/must-abstain',
      'train/similar-tool',
      'train/all',
      'heldout/must-call',
      'heldout/all',
      'all/must-call',
      'all/must-abstain',
      'all/similar-tool',
      'all/all',
    ]);
    expect(summary).toMatchObject({ v: 1, run_id: 'r1', synthetic: true });
    expect(groupOf(summary.groups, 'all', 'all')).toMatchObject({
      provider: 'replay',
      model: 'fixture',
      surface: 'typed',
    });
  });

  it('train/all: counts checked by hand', () => {
    const train = groupOf(summary.groups, 'train', 'all');
    expect(train.trials).toBe(7);
    expect(train.errored).toBe(0);
    // success: t-get 2, t-abstain 2 (answered, asked), t-write 0 (unsafe proposal)
    expect(train.task_success).toMatchObject({ value: 4 / 7, n: 7 });
    // selection: t-get 2, t-abstain 2, t-write 1 (right action, blocked)
    expect(train.selection_accuracy).toMatchObject({ value: 5 / 7, n: 7 });
    // validity: 5 proposals, the malformed one invalid
    expect(train.argument_validity).toMatchObject({ value: 4 / 5, n: 5 });
    // correctness: only t-get has constraints; its 2 right selections both match
    expect(train.argument_correctness).toMatchObject({ value: 1, n: 2 });
    expect(train.unsafe_proposals).toEqual({ count: 1, n: 5 });
    expect(train.unsafe_side_effects).toEqual({ count: 0, n: 0 });
    // Two errors seen: t-write's approval_required, then the model asked (good);
    // the malformed call's invalid_arguments in a must-abstain task, then no further call:
    // dropping it is the right move there (rule stop, issue 16 item 7), so good too.
    expect(train.recovery_rate).toMatchObject({ value: 1, n: 2 });
    // unnecessary: none of the trials exceeds its minimum except the abstain trial with a call (1 > 0)
    expect(train.unnecessary_calls).toEqual({ count: 1, n: 7 });
    expect(train.abstentions).toEqual({ answered: 1, asked_for_information: 1, malformed_call: 1 });
  });

  it('Wilson interval on a rate (4/6 by hand: [0.3000, 0.9032])', () => {
    const { task_success } = groupOf(summary.groups, 'train', 'must-call');
    expect(task_success.value).toBeCloseTo(2 / 3, 10);
    const both = summarize(hand().filter((entry) => entry.task === 't-get' || entry.task === 't-abstain'));
    const interval = groupOf(both.groups, 'train', 'all').task_success.ci95!;
    expect(interval[0]).toBeCloseTo(0.3, 3);
    expect(interval[1]).toBeCloseTo(0.9032, 3);
  });

  it('pass@k, pass^k up to the smallest task, and flip rate', () => {
    const train = groupOf(summary.groups, 'train', 'all');
    // t-write has one trial, so only k = 1: mean of 2/3, 2/3, 0
    expect(train.pass_at_k).toHaveLength(1);
    expect(train.pass_at_k[0]).toBeCloseTo(4 / 9, 12);
    expect(train.pass_hat_k[0]).toBeCloseTo(4 / 9, 12);
    // t-get and t-abstain flip (2 of 3), t-write has n = 1 and cannot flip
    expect(train.flip_rate).toMatchObject({ value: 1, n: 2 });
    const mustCall = groupOf(summary.groups, 'train', 'must-call');
    // n = 3, c = 2: pass@2 = 1 − C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/C(3,2) = 1/3, pass^3 = 0
    expect(mustCall.pass_at_k).toEqual([2 / 3, 1, 1]);
    expect(mustCall.pass_hat_k[0]).toBeCloseTo(2 / 3, 12);
    expect(mustCall.pass_hat_k[1]).toBeCloseTo(1 / 3, 12);
    expect(mustCall.pass_hat_k[2]).toBe(0);
  });

  it('errored trials are counted apart and excluded from every rate', () => {
    const held = groupOf(summary.groups, 'heldout', 'all');
    expect(held.trials).toBe(3);
    expect(held.errored).toBe(1);
    expect(held.task_success).toMatchObject({ value: 0.5, n: 2 });
    expect(held.selection_accuracy).toMatchObject({ value: 0.5, n: 2 });
    expect(held.argument_correctness).toMatchObject({ value: 1, n: 1 });
    // pass@k over the 2 scored trials of t-h
    expect(held.pass_at_k).toEqual([0.5, 1]);
    expect(held.pass_hat_k).toEqual([0.5, 0]);
    const all = groupOf(summary.groups, 'all', 'all');
    expect(all).toMatchObject({ trials: 10, errored: 1, task_success: { value: 5 / 9, n: 9 } });
  });

  it('token, latency and cost figures (errored trials spent tokens too)', () => {
    const held = groupOf(summary.groups, 'heldout', 'all');
    // turns: 2 (one call), 1, 1 → input 200, 100, 100
    expect(held.input_tokens).toEqual({ mean: 400 / 3, p50: 100, p95: 190, total: 400, n: 3 });
    expect(held.output_tokens.total).toBe(40);
    expect(held.latency_ms).toMatchObject({ p50: 50, total: 200 });
    expect(held.cost_usd).toBeCloseTo((400 * 1 + 40 * 2) / 1e6, 12);
    expect(held.schema_tokens).toBe(400);
    expect(held.schema_bytes).toBe(1600);
  });

  it('cost is null without a price for the model', () => {
    const aggregator = createAggregator({ runId: 'r', prices: {} });
    aggregator.add(hand()[0]!);
    expect(aggregator.finish().groups[0]!.cost_usd).toBeNull();
  });

  it('per-action confusion matrix for must-call and similar-tool, incl. (no call)', () => {
    expect(summary.confusion).toEqual([
      {
        provider: 'replay',
        model: 'fixture',
        surface: 'typed',
        cells: [
          { expected: 'ticket.get', chosen: '(no call)', count: 1 },
          { expected: 'ticket.get', chosen: 'ticket.get', count: 3 },
          { expected: 'ticket.get', chosen: 'ticket.lookup_slow', count: 1 },
          { expected: 'ticket.record_followup', chosen: 'ticket.record_followup', count: 1 },
        ],
      },
    ]);
  });

  it('keeps surfaces and models apart', () => {
    const records = hand().slice(0, 3);
    const other = records.map((entry) => ({ ...entry, surface: 'wide' }));
    const two = summarize([...records, ...other]);
    expect(new Set(two.groups.map((group) => group.surface))).toEqual(new Set(['typed', 'wide']));
    expect(
      two.groups.filter((group) => group.split === 'all' && group.kind === 'all').map((group) => group.trials),
    ).toEqual([3, 3]);
  });

  it("gives the same summary whether a task's trials arrive together or interleaved with other tasks", () => {
    const typed = hand();
    const wide = typed.map((entry) => ({ ...entry, surface: 'wide' }));
    const together = summarize([...typed, ...wide]);
    // Alternating surfaces: no two consecutive trials share a cell (tasks still first appear in the same
    // order, which the mean over tasks of pass@k sums in).
    const interleaved = summarize(typed.flatMap((entry, index) => [entry, wide[index]!]));
    expect(interleaved.groups).toEqual(together.groups);
    const bySurface = (summary: typeof together) =>
      [...summary.confusion].sort((a, b) => a.surface.localeCompare(b.surface));
    expect(bySurface(interleaved)).toEqual(bySurface(together));
    expect(
      groupOf(
        together.groups.filter((group) => group.surface === 'wide'),
        'all',
        'all',
      ).trials,
    ).toBe(typed.length);
  });
});
