import { describe, expect, it } from 'vitest';
import {
  createTaskOutcomes,
  describeVerdict,
  failingVerdicts,
  isFlipped,
  outcomeKey,
  type TaskOutcome,
} from '../../src/report/task-outcomes.ts';
import type { TrialRecord } from '../../src/spec/index.ts';
import { fixtureTrials } from './fixture-run.ts';

const records = fixtureTrials({
  trials: 6,
  models: [
    { provider: 'replay', model: 'a' },
    { provider: 'replay', model: 'b' },
  ],
});

function reduce(order: TrialRecord[]): TaskOutcome[] {
  const outcomes = createTaskOutcomes();
  for (const record of order) outcomes.add(record);
  return outcomes.finish().sort((left, right) => outcomeKey(left).localeCompare(outcomeKey(right)));
}

describe('createTaskOutcomes', () => {
  it('says whether any case is flipped as its outcomes do, with none, one or several flipped', () => {
    const flipped = reduce(records).filter(isFlipped);
    expect(flipped.length).toBeGreaterThan(0);
    const flippedKeys = new Set(flipped.map(outcomeKey));
    // Every trial of a flipped case but its first: that case has one trial, no longer flipped.
    const firstOnly = records.filter(
      (record) =>
        !flippedKeys.has(outcomeKey(record)) ||
        record.trial ===
          Math.min(...records.filter((other) => outcomeKey(other) === outcomeKey(record)).map((other) => other.trial)),
    );
    for (const [order, expected] of [
      [records, true],
      [firstOnly, false],
      [[...firstOnly, ...records.filter((record) => outcomeKey(record) === outcomeKey(flipped[0]!))], true],
      [[], false],
    ] as const) {
      const outcomes = createTaskOutcomes();
      for (const record of order) outcomes.add(record);
      expect(outcomes.anyFlipped()).toBe(expected);
      expect(outcomes.finish().some(isFlipped)).toBe(expected);
    }
  });

  it("counts each case's trials the same whether they arrive together or interleaved", () => {
    const byCase = [...records].sort(
      (left, right) => outcomeKey(left).localeCompare(outcomeKey(right)) || left.trial - right.trial,
    );
    // Deal the trials round-robin, so consecutive records never belong to the same case (each
    // case still sees its trials in the same order: its "first failed trials" depend on that).
    const cases = new Map<string, TrialRecord[]>();
    for (const record of byCase) cases.set(outcomeKey(record), [...(cases.get(outcomeKey(record)) ?? []), record]);
    const interleaved: TrialRecord[] = [];
    for (let index = 0; interleaved.length < records.length; index += 1)
      for (const list of cases.values()) if (list[index]) interleaved.push(list[index]!);
    expect(reduce(interleaved)).toEqual(reduce(byCase));

    const outcomes = reduce(interleaved);
    expect(outcomes).toHaveLength(cases.size);
    for (const outcome of outcomes) {
      const trials = cases.get(outcomeKey(outcome))!;
      expect(outcome.trials).toBe(trials.length);
      expect(outcome.successes).toBe(
        trials.filter((record) => record.status === 'completed' && record.success === true).length,
      );
      expect(outcome.outcomes).toHaveLength(trials.length);
    }
  });

  it('keeps cases apart that differ in one field only', () => {
    const base = records[0]!;
    const outcomes = reduce([
      base,
      { ...base, model: 'other' },
      { ...base, surface: 'other' },
      { ...base, task: 'other' },
      { ...base, domain: 'other' },
      { ...base, provider: 'other' },
      base,
    ]);
    expect(outcomes.map((outcome) => outcome.trials).sort()).toEqual([1, 1, 1, 1, 1, 2]);
  });
});

describe('createTaskOutcomes, stored by column', () => {
  const failed = records.find((record) => record.status === 'completed' && record.success === false)!;
  const passed = records.find((record) => record.success === true && outcomeKey(record) === outcomeKey(failed));
  const errored = records.find((record) => record.status === 'errored')!;

  it('orders trial outcomes by trial index, and a repeated index keeps its last outcome', () => {
    const pass = { ...(passed ?? failed), success: true, status: 'completed' as const };
    const [outcome] = reduce([
      { ...failed, trial: 2 },
      { ...pass, trial: 0 },
      { ...failed, trial: 1 },
      { ...pass, trial: 2 },
    ]);
    expect(outcome!.outcomes).toEqual(['pass', 'fail', 'pass']);
    expect(outcome!.trials).toBe(4);
    expect(outcome!.successes).toBe(2);

    const [single] = reduce([failed, { ...pass, trial: failed.trial }]);
    expect(single!.outcomes).toEqual(['pass']);
  });

  it('keeps the first three failed trials, each failing verdict described in one line', () => {
    const [outcome] = reduce([0, 1, 2, 3, 4].map((trial) => ({ ...failed, trial })));
    expect(outcome!.failedTrials.map((entry) => entry.trial)).toEqual([0, 1, 2]);
    const failing = failingVerdicts(failed);
    expect(outcome!.failedTrials[0]!.verdicts).toEqual(failing.map(describeVerdict));
    const first = failing[0]!;
    expect(outcome!.failedTrials[0]!.verdicts[0]).toBe(
      `${first.grader}: expected ${JSON.stringify(first.expected)}, got ${JSON.stringify(first.actual)}${first.note ? ` (${first.note})` : ''}`,
    );
    for (const verdict of failing) expect(outcome!.failingGraders[verdict.grader]).toBe(5);
  });

  it('keeps the split and kind of each case, and errors apart from failures', () => {
    const outcomes = reduce([failed, errored, { ...errored, trial: errored.trial + 1 }]);
    const byKey = new Map(outcomes.map((outcome) => [outcomeKey(outcome), outcome]));
    const erroredCase = byKey.get(outcomeKey(errored))!;
    expect(erroredCase).toMatchObject({ split: errored.split, kind: errored.kind, errored: 2, completed: 0 });
    expect(erroredCase.errorMessages).toEqual([errored.error!.message]);
    expect(erroredCase.failedTrials).toEqual([]);
    expect(byKey.get(outcomeKey(failed))).toMatchObject({ split: failed.split, kind: failed.kind, errorMessages: [] });
  });

  it('counts every case of a run with more cases than its columns first hold (1,024), in first-seen order', () => {
    // Distinct tasks, one or two trials each, as a generated suite's run: the columns grow twice.
    const many: TrialRecord[] = [];
    for (let index = 0; index < 2_500; index += 1) {
      const base = records[index % records.length]!;
      const task = `many-${index}`;
      many.push({ ...base, task, trial: 0 });
      if (index % 3 === 0) many.push({ ...base, task, trial: 1, latency_ms: 7 });
    }
    const outcomes = createTaskOutcomes();
    for (const record of many) outcomes.add(record);
    const found = outcomes.finish();
    expect(found.map((outcome) => outcome.task)).toEqual([...new Set(many.map((record) => record.task))]);
    for (const outcome of found) {
      const own = many.filter((record) => record.task === outcome.task);
      expect(outcome.trials).toBe(own.length);
      expect(outcome.successes).toBe(
        own.filter((record) => record.status === 'completed' && record.success === true).length,
      );
      expect(outcome.errored).toBe(own.filter((record) => record.status === 'errored').length);
      expect(outcome.latencyMs).toBe(own.reduce((sum, record) => sum + record.latency_ms, 0));
      expect(outcome.split).toBe(own[0]!.split);
    }
  });
});
