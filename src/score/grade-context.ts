import type { ActionSpec, Expect, Task, TrialRecord, Verdict } from '../spec/index.ts';

/** Everything a grader may read. Graders are pure: same context, same verdicts. */
export interface GradeContext {
  record: TrialRecord;
  task: Task;
  /** The task's expectations, with `abstain: true` implied for must-abstain tasks. */
  expect: Expect;
  actions: ReadonlyMap<string, ActionSpec>;
}

/** A grader for one `expect` field: gets that field's value, returns one or more verdicts. */
export type ExpectGrader<K extends keyof Expect> = (
  expected: NonNullable<Expect[K]>,
  context: GradeContext,
) => Verdict[];

/** A grader that runs on every completed trial; `inSuccess` says whether it gates `success`. */
export type TrialGrader = (context: GradeContext) => { verdict: Verdict; inSuccess: boolean };

/** Note on verdicts that feed a metric but do not decide `success`. */
export const METRIC_ONLY = 'metric only: not part of success';
