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
  /** The first few failed trials with their failing verdicts, each described in one line (`describeVerdict`; bounded). */
  failedTrials: { trial: number; verdicts: string[] }[];
  /** The first few distinct provider error messages (bounded). */
  errorMessages: string[];
  latencyMs: number;
}

const KEPT_FAILED_TRIALS = 3;
const KEPT_ERROR_MESSAGES = 3;

/**
 * A failing verdict in one line, as junit.xml shows it: expected and actual
 * as JSON cut at 300 characters. Described when the trial is added, so the
 * collector keeps a short string instead of the verdict's values. Joined
 * rather than concatenated: V8 keeps a `+` or template chain as a tree of
 * pieces (~40 % more memory per kept line), a join makes one flat string.
 */
export function describeVerdict(verdict: Verdict): string {
  const show = (value: unknown) => {
    const text = JSON.stringify(value) ?? 'undefined';
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  };
  return [
    verdict.grader,
    ': expected ',
    show(verdict.expected),
    ', got ',
    show(verdict.actual),
    verdict.note ? ` (${verdict.note})` : '',
  ].join('');
}

/**
 * Key of a task × surface × provider/model case. Joined with NUL, which no
 * name contains (task and surface ids are `[A-Za-z0-9._-]+`): one string
 * concatenation per trial instead of a JSON text.
 */
export function outcomeKey(record: Pick<TrialRecord, 'provider' | 'model' | 'domain' | 'surface' | 'task'>): string {
  return `${record.provider}\u0000${record.model}\u0000${record.domain}\u0000${record.surface}\u0000${record.task}`;
}

const OUTCOME_CODES: readonly TrialOutcome[] = ['pass', 'fail', 'errored'];

/** The cases of one provider/model × domain × surface: task id → case number. */
interface CaseGroup {
  provider: string;
  model: string;
  domain: string;
  surface: string;
  cases: Map<string, number>;
}

/** What only failing or errored cases have (a minority), kept beside the columns. */
interface CaseProblems {
  failingGraders: Record<string, number>;
  failedTrials: { trial: number; verdicts: string[] }[];
  errorMessages: string[];
}

/** The cases the columns hold before they first grow. */
const FIRST_CASES = 1024;

/** A growable column of numbers. */
function grown<T extends Uint32Array | Int32Array | Uint8Array | Float64Array>(column: T, size: number): T {
  if (size <= column.length) return column;
  const bigger = new (column.constructor as new (length: number) => T)(Math.max(size, column.length * 2));
  bigger.set(column);
  return bigger;
}

/**
 * Streaming reducer: per-trial memory is a few counters, so a run of any
 * size fits (memory grows with tasks × surfaces, not trials).
 *
 * Stored by column, not as an object per case: a run of 100,000 one-trial
 * tasks kept ~1.1 KB per case as objects (a Map of trial outcomes, arrays,
 * the failing verdicts' values) — ~110 MB held through the trials. Here a
 * case is a task → number entry in its group's Map, a few typed-array
 * slots, interned split and kind, and — for failing or errored cases only —
 * the bounded failure notes (verdicts already described as junit.xml shows
 * them). The common case of one trial per case needs no outcome Map; a case
 * with several trial indices gets one on its second. `finish` builds the
 * TaskOutcome objects, in the order the cases first appeared.
 */
export function createTaskOutcomes(): {
  add(record: TrialRecord): void;
  /** Whether any case is flipped (`isFlipped` of its outcome), without making the outcomes. */
  anyFlipped(): boolean;
  finish(): TaskOutcome[];
} {
  const groups = new Map<string, CaseGroup>();
  const caseGroup: CaseGroup[] = [];
  const caseTask: string[] = [];
  const labels: string[] = [];
  const labelCode = new Map<string, number>();
  // Every column starts at one length and grows with the others (one capacity check below).
  let caseSplit = new Uint32Array(FIRST_CASES);
  let caseKind = new Uint32Array(FIRST_CASES);
  let trials = new Uint32Array(FIRST_CASES);
  let completed = new Uint32Array(FIRST_CASES);
  let successes = new Uint32Array(FIRST_CASES);
  let errored = new Uint32Array(FIRST_CASES);
  let latency = new Float64Array(FIRST_CASES);
  // The trial index and outcome of a case's first record; `byTrial` once a second index arrives.
  let firstTrial = new Int32Array(FIRST_CASES);
  let firstOutcome = new Uint8Array(FIRST_CASES);
  const byTrial = new Map<number, Map<number, number>>();
  const problems = new Map<number, CaseProblems>();
  let lastGroup: CaseGroup | undefined;
  let lastCase = -1;
  // Failing verdicts repeat across tasks (the same wrong action, "never called"): each text is kept once.
  const descriptions = new Map<string, string>();
  const described = (verdict: Verdict) => {
    const text = describeVerdict(verdict);
    const kept = descriptions.get(text);
    if (kept !== undefined) return kept;
    descriptions.set(text, text);
    return text;
  };

  const label = (text: string) => {
    let code = labelCode.get(text);
    if (code === undefined) {
      code = labels.length;
      labels.push(text);
      labelCode.set(text, code);
    }
    return code;
  };
  const groupOf = (record: TrialRecord): CaseGroup => {
    // A run's trials mostly share their provider, model, domain and surface with the previous one.
    if (
      lastGroup !== undefined &&
      lastGroup.surface === record.surface &&
      lastGroup.model === record.model &&
      lastGroup.provider === record.provider &&
      lastGroup.domain === record.domain
    )
      return lastGroup;
    const key = `${record.provider}\u0000${record.model}\u0000${record.domain}\u0000${record.surface}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        provider: record.provider,
        model: record.model,
        domain: record.domain,
        surface: record.surface,
        cases: new Map(),
      };
      groups.set(key, group);
    }
    return (lastGroup = group);
  };
  // The columns' common length, checked once per new case: nine `grown` calls per case, each on
  // another kind of typed array, were ~35-40 ms of a 10,000-task replay's trials profiled (~1 %; one case per trial).
  let capacity = caseSplit.length;
  const newCase = (group: CaseGroup, record: TrialRecord): number => {
    const index = caseTask.length;
    if (index >= capacity) {
      const size = index + 1;
      caseSplit = grown(caseSplit, size);
      caseKind = grown(caseKind, size);
      trials = grown(trials, size);
      completed = grown(completed, size);
      successes = grown(successes, size);
      errored = grown(errored, size);
      latency = grown(latency, size);
      firstTrial = grown(firstTrial, size);
      firstOutcome = grown(firstOutcome, size);
      capacity = caseSplit.length;
    }
    caseGroup.push(group);
    caseTask.push(record.task);
    caseSplit[index] = label(record.split);
    caseKind[index] = label(record.kind);
    firstTrial[index] = record.trial;
    group.cases.set(record.task, index);
    return index;
  };
  const problemsOf = (index: number): CaseProblems => {
    let found = problems.get(index);
    if (!found) {
      found = { failingGraders: {}, failedTrials: [], errorMessages: [] };
      problems.set(index, found);
    }
    return found;
  };
  const noteOutcome = (index: number, trial: number, code: number) => {
    if (trials[index] === 0 || (firstTrial[index] === trial && !byTrial.has(index))) {
      firstOutcome[index] = code;
      return;
    }
    let outcomes = byTrial.get(index);
    if (!outcomes) {
      outcomes = new Map([[firstTrial[index]!, firstOutcome[index]!]]);
      byTrial.set(index, outcomes);
    }
    outcomes.set(trial, code);
  };

  return {
    add(record) {
      const group = groupOf(record);
      // A case's trials mostly arrive one after another: the last case needs no lookup.
      let index =
        lastCase >= 0 && caseGroup[lastCase] === group && caseTask[lastCase] === record.task
          ? lastCase
          : group.cases.get(record.task);
      if (index === undefined) index = newCase(group, record);
      lastCase = index;
      const outcome = trialOutcome(record);
      noteOutcome(index, record.trial, OUTCOME_CODES.indexOf(outcome));
      trials[index] += 1;
      latency[index] += record.latency_ms;
      if (outcome === 'errored') {
        errored[index] += 1;
        const message = record.error?.message ?? 'provider error';
        const { errorMessages } = problemsOf(index);
        if (errorMessages.length < KEPT_ERROR_MESSAGES && !errorMessages.includes(message)) errorMessages.push(message);
        return;
      }
      completed[index] += 1;
      if (outcome === 'pass') {
        successes[index] += 1;
        return;
      }
      const failing = failingVerdicts(record);
      const { failingGraders, failedTrials } = problemsOf(index);
      for (const verdict of failing) failingGraders[verdict.grader] = (failingGraders[verdict.grader] ?? 0) + 1;
      if (failing.length === 0) failingGraders['(unscored)'] = (failingGraders['(unscored)'] ?? 0) + 1;
      if (failedTrials.length < KEPT_FAILED_TRIALS)
        failedTrials.push({ trial: record.trial, verdicts: failing.map(described) });
    },
    anyFlipped() {
      for (let index = 0; index < caseTask.length; index += 1)
        if (successes[index]! > 0 && successes[index]! < completed[index]!) return true;
      return false;
    },
    finish() {
      return caseTask.map((task, index) => {
        const group = caseGroup[index]!;
        const several = byTrial.get(index);
        const found = problems.get(index);
        return {
          provider: group.provider,
          model: group.model,
          domain: group.domain,
          surface: group.surface,
          split: labels[caseSplit[index]!]! as TaskOutcome['split'],
          task,
          kind: labels[caseKind[index]!]! as TaskOutcome['kind'],
          trials: trials[index]!,
          completed: completed[index]!,
          successes: successes[index]!,
          errored: errored[index]!,
          outcomes: several
            ? [...several.entries()].sort((a, b) => a[0] - b[0]).map(([, code]) => OUTCOME_CODES[code]!)
            : [OUTCOME_CODES[firstOutcome[index]!]!],
          failingGraders: found?.failingGraders ?? {},
          failedTrials: found?.failedTrials ?? [],
          errorMessages: found?.errorMessages ?? [],
          latencyMs: latency[index]!,
        };
      });
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
  const entries = Object.entries(outcome.failingGraders);
  // Most failing cases have one failing grader (junit.xml describes every one): nothing to sort.
  if (entries.length === 1 && limit > 0) return `${entries[0]![0]} ×${entries[0]![1]}`;
  return entries
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
