import { pendingUserCode, runningUserCall, type UserCode } from '../registry/index.ts';
import type { TrialRecord } from '../spec/index.ts';
import type { PlannedTrial } from './plan.ts';
import { abandonedTrial, type TrialInput } from './trial.ts';

/** What `InFlightTrials.recordBlocked` found and did. */
export interface BlockedReport {
  /** The user code that blocks the run (`the handler of tool note.get`), or a description when it cannot be told. */
  what: string;
  /** The trial it runs for (`notes/read-n1, surface typed, trial 2, replay`), or null when it cannot be told apart. */
  trial: string | null;
  /** The trials in flight when the trial cannot be told apart. */
  candidates: string[];
  /** The blocked trial was appended to trials.jsonl as errored (resume will not run it again). */
  recorded: boolean;
}

interface Flight {
  planned: PlannedTrial;
  /** Date.now(), not an ISO string: formatting one per trial cost ~1 µs, and it is needed only for a blocked trial. */
  startedAt: number;
}

/**
 * The trials in flight, so that a run whose main thread is blocked by user
 * code (a tool handler in an endless loop) can record the blocked trial as
 * errored before the process ends: `recordBlocked` is called *on the
 * blocked thread* (src/cli/stuck-handler-watchdog.ts interrupts it), so it
 * is synchronous and reads the user-code marker the blocked call set. One
 * per run, passed in like LiveStates; a Map entry per trial is its cost.
 */
export class InFlightTrials {
  readonly #flights = new Map<TrialInput, Flight>();
  #write: ((record: TrialRecord, planned: PlannedTrial) => void) | null = null;
  #save: (() => void) | null = null;

  /**
   * How a blocked trial's record is written (executeRun: score, then append),
   * and how the finished trials still gathered for a batched write reach the
   * file at once (executeRun: flush the appender).
   */
  attach(write: (record: TrialRecord, planned: PlannedTrial) => void, save: () => void): void {
    this.#write = write;
    this.#save = save;
  }

  /**
   * Forget what `attach` was given, once the trials are over: nothing is in
   * flight then, and those functions hold the run's plan — every planned
   * trial, its provider, a replay provider's cassette index — which would
   * otherwise stay in memory through the summary and the reports.
   */
  detach(): void {
    this.#write = null;
    this.#save = null;
  }

  /**
   * Write the finished trials a batched append still holds: the process is
   * about to end without its event loop turning again (a forced stop, a
   * blocked run). Synchronous; safe to call on the blocked thread.
   */
  saveFinished(): void {
    this.#save?.();
  }

  add(input: TrialInput, planned: PlannedTrial): void {
    this.#flights.set(input, { planned, startedAt: Date.now() });
  }

  delete(input: TrialInput): void {
    this.#flights.delete(input);
  }

  /**
   * Name the user code that blocks the run and its trial, and append that
   * trial as errored with `reason(what)`. The culprit is the synchronous
   * call marked now; failing that (a loop after an `await`), the one async
   * user call not yet settled, or the one trial in flight. Several
   * candidates: nothing is recorded (resume runs them again), all are named.
   */
  recordBlocked(reason: (what: string) => string): BlockedReport {
    const culprit = this.#culprit();
    if (culprit === null) {
      this.saveFinished();
      const candidates = [...this.#flights.values()].map((flight) => trialName(flight.planned));
      return { what: 'user code after an await', trial: null, candidates, recorded: false };
    }
    const flight = this.#flights.get(culprit.owner as TrialInput)!;
    let recorded = false;
    if (this.#write !== null) {
      this.#write(
        abandonedTrial(culprit.owner as TrialInput, new Date(flight.startedAt).toISOString(), reason(culprit.what)),
        flight.planned,
      );
      this.#flights.delete(culprit.owner as TrialInput);
      recorded = true;
    }
    this.saveFinished();
    return { what: culprit.what, trial: trialName(flight.planned), candidates: [], recorded };
  }

  #culprit(): UserCode | null {
    const now = runningUserCall();
    if (now !== null && this.#flights.has(now.owner as TrialInput)) return now;
    const pending = pendingUserCode().filter((call) => this.#flights.has(call.owner as TrialInput));
    if (pending.length === 1) return pending[0]!;
    if (this.#flights.size === 1) {
      const [owner] = this.#flights.keys();
      return { what: 'user code after an await', owner };
    }
    return null;
  }
}

function trialName(planned: PlannedTrial): string {
  return `${planned.domain.name}/${planned.task.id}, surface ${planned.surface.id}, trial ${planned.trial}, ${planned.provider.id}:${planned.provider.model}`;
}
