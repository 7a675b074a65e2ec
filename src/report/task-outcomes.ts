import type { TrialRecord, Verdict } from '../spec/index.ts';
import { METRIC_ONLY } from '../score/index.ts';

/** A trial's outcome as the reports show it. Errored trials are provider failures, never model misses. */
export type TrialOutcome = 'pass' | 'fail' | 'errored';

/** Classifies one scored trial. A completed trial the scorer left unscored (`success: null`) counts as a fail. */
export function trialOutcome(record: TrialRecord): TrialOutcome {
  if (record.status === 'errored') return 'errored';
  return record.success === true ? 'pass' : 'fail';
}

/** The verdicts that failed, in a compact form for messages. */
export function failingVerdicts(record: TrialRecord): Verdict[] {
  // Only verdicts that decide success: a metric-only miss (argument_validity, unnecessary_calls) did not fail the trial.
  return record.verdicts.filter((verdict) => !verdict.pass && verdict.note !== METRIC_ONLY);
}

/** The fields that say which task × surface × provider/model a trial belongs to. */
export type TaskKeyFields = Pick<TrialRecord, 'provider' | 'model' | 'domain' | 'surface' | 'split' | 'task' | 'kind'>;

/** Every trial of one task on one surface for one provider/model, reduced to counts. */
export interface TaskOutcome extends TaskKeyFields {
  /** All trials, errored included. */
  trials: number;
  /** Trials that were not errored: the denominator of the success rate. */
  completed: number;
  successes: number;
  errored: number;
  /** Per trial index, in order: `pass`, `fail` or `errored`. */
  outcomes: TrialOutcome[];
  /** Grader → number of trials where it failed. */
  failingGraders: Record<string, number>;
  /** The first few failed trials with their failing verdicts (bounded). */
  failedTrials: { trial: number; verdicts: Verdict[] }[];
  /** The first few distinct provider error messages (bounded). */
  errorMessages: string[];
  latencyMs: number;
}

const KEPT_FAILED_TRIALS = 3;
const KEPT_ERROR_MESSAGES = 3;

/**
 * Key of a task × surface × provider/model case. Joined with NUL, which no
 * name contains (task and surface ids are `[A-Za-z0-9._-]+`): one string
 * concatenation per trial instead of a JSON text.
 */
export function outcomeKey(record: Pick<TrialRecord, 'provider' | 'model' | 'domain' | 'surface' | 'task'>): string {
  return `${record.provider}\u0000${record.model}\u0000${record.domain}\u0000${record.surface}\u0000${record.task}`;
}

/**
 * Streaming reducer: per-trial memory is a few counters, so a run of any
 * size fits (memory grows with tasks × surfaces, not trials).
 */
export function createTaskOutcomes(): { add(record: TrialRecord): void; finish(): TaskOutcome[] } {
  type Entry = TaskOutcome & { byTrial: Map<number, TrialOutcome> };
  const byKey = new Map<string, Entry>();
  let last: Entry | undefined;
  return {
    add(record) {
      // A case's trials mostly arrive one after another: the last case needs no key.
      const sameAsLast =
        last !== undefined &&
        last.task === record.task &&
        last.surface === record.surface &&
        last.model === record.model &&
        last.provider === record.provider &&
        last.domain === record.domain;
      let entry = sameAsLast ? last : byKey.get(outcomeKey(record));
      if (!entry) {
        entry = {
          provider: record.provider,
          model: record.model,
          domain: record.domain,
          surface: record.surface,
          split: record.split,
          task: record.task,
          kind: record.kind,
          trials: 0,
          completed: 0,
          successes: 0,
          errored: 0,
          outcomes: [],
          failingGraders: {},
          failedTrials: [],
          errorMessages: [],
          latencyMs: 0,
          byTrial: new Map(),
        };
        byKey.set(outcomeKey(record), entry);
      }
      last = entry;
      const outcome = trialOutcome(record);
      entry.trials += 1;
      entry.latencyMs += record.latency_ms;
      entry.byTrial.set(record.trial, outcome);
      if (outcome === 'errored') {
        entry.errored += 1;
        const message = record.error?.message ?? 'provider error';
        if (entry.errorMessages.length < KEPT_ERROR_MESSAGES && !entry.errorMessages.includes(message))
          entry.errorMessages.push(message);
        return;
      }
      entry.completed += 1;
      if (outcome === 'pass') {
        entry.successes += 1;
        return;
      }
      const failing = failingVerdicts(record);
      for (const verdict of failing)
        entry.failingGraders[verdict.grader] = (entry.failingGraders[verdict.grader] ?? 0) + 1;
      if (failing.length === 0) entry.failingGraders['(unscored)'] = (entry.failingGraders['(unscored)'] ?? 0) + 1;
      if (entry.failedTrials.length < KEPT_FAILED_TRIALS)
        entry.failedTrials.push({ trial: record.trial, verdicts: failing });
    },
    finish() {
      return [...byKey.values()].map(({ byTrial, ...outcome }) => ({
        ...outcome,
        outcomes: [...byTrial.entries()].sort((a, b) => a[0] - b[0]).map(([, value]) => value),
      }));
    },
  };
}

/** Share of completed trials that succeeded; null when every trial errored. */
export function successRate(outcome: TaskOutcome): number | null {
  return outcome.completed === 0 ? null : outcome.successes / outcome.completed;
}

/** A flipped task: its completed trials disagree (some pass, some fail). */
export function isFlipped(outcome: TaskOutcome): boolean {
  return outcome.successes > 0 && outcome.successes < outcome.completed;
}

/** Graders sorted by how often they failed, most first: `selection ×2, args ×1`. */
export function describeFailingGraders(outcome: TaskOutcome, limit = 3): string {
  return Object.entries(outcome.failingGraders)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([grader, count]) => `${grader} ×${count}`)
    .join(', ');
}

/** Cases with the most failed trials first (ties: lower success rate, then name). */
export function mostFailures(outcomes: readonly TaskOutcome[], limit: number): TaskOutcome[] {
  return outcomes
    .filter((outcome) => outcome.completed - outcome.successes > 0)
    .sort(
      (a, b) =>
        b.completed - b.successes - (a.completed - a.successes) ||
        (successRate(a) ?? 1) - (successRate(b) ?? 1) ||
        a.task.localeCompare(b.task) ||
        a.surface.localeCompare(b.surface),
    )
    .slice(0, limit);
}
