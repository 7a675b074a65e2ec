import { describe, expect, it } from 'vitest';
import { createTaskOutcomes, outcomeKey, type TaskOutcome } from '../../src/report/task-outcomes.ts';
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
