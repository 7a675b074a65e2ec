import type { LiveStates } from '../registry/index.ts';
import type { InFlightTrials } from '../solve/index.ts';
import type { TrialRecord } from '../spec/index.ts';

/**
 * The phases of a run, in order. `load` begins the run (reading the config,
 * the domains, surfaces and tasks); `preflight` once the project is loaded
 * (schema costs, providers and their cassettes, the plan, the replay check,
 * the manifest); `trials` once the manifest is written; `summary` once the
 * last trial is in `trials.jsonl`; `reports` once `summary.json` is written.
 */
export type RunPhase = 'load' | 'preflight' | 'trials' | 'summary' | 'reports';

/**
 * What a run tells its caller as it goes, all optional. The library prints
 * nothing: the CLI draws its progress bar from these, the bench times the
 * phases with them.
 */
export interface RunEvents {
  /** The plan is known: trials planned, already done (a resumed run), and to run now; `live` when a provider talks to a live model; the run folder. */
  /** …and `userCodeLimitMs`, how long user code may block the run (`run.user_code_limit_ms`; the CLI's watchdog enforces it). */
  /** `planned`: the run's size as its manifest records it (a resume: as first planned), which `betweenPhases` is given too. */
  onStart?(info: {
    total: number;
    planned: number;
    skipped: number;
    todo: number;
    live: boolean;
    runDir: string;
    userCodeLimitMs: number;
  }): void;
  /** A model request is retried (its cause, the wait); `where` names the trial. */
  onRetry?(
    note: { attempt: number; failure: string; waitedMs: number },
    where: { provider: string; model: string; domain: string; task: string; surface: string; trial: number },
  ): void;
  /**
   * Something the folder needed before the command could go on, said once:
   * a stale lock taken over, an interrupted re-score completed, temporary
   * files of a killed writer removed (src/run-folder/open.ts). The CLI prints it as `note:`.
   */
  onNote?(message: string): void;
  /** A trial was run and appended to `trials.jsonl` (graded). */
  onTrial?(record: TrialRecord): void;
  /** A phase begins (awaited, so a caller may time it or act between phases). */
  onPhase?(phase: RunPhase): void | Promise<void>;
  /**
   * Awaited where most of what the previous phase made has just become
   * garbage: after start-up (before the first trial), after the trials
   * (before the summary step) and after the trials' reducers are done
   * (before the reports render). `plannedTrials`: the run's size, when the
   * caller knows it (a run does; merge and a re-score do not). The CLI
   * hands memory back to the system here (src/cli/heap-policy.ts); a
   * library caller leaves it out. It is a hook, not a policy, so the
   * library never changes the process's heap settings.
   */
  betweenPhases?(plannedTrials?: number): Promise<void>;
}

/** Stopping a run from outside (the CLI wires Ctrl-C to these). */
export interface RunControl {
  /** Aborted = schedule no more trials; trials in flight finish and are written. */
  stop?: AbortSignal;
  /** Passed to providers: aborting it cancels model calls in flight. */
  signal?: AbortSignal;
  /** Domain states of the trials in flight: a caller quitting at once calls `live.drain()` to tear them down. */
  live?: LiveStates;
  /** The trials in flight: a caller whose run is blocked by user code records the blocked one (`inFlight.recordBlocked`). */
  inFlight?: InFlightTrials;
  events?: RunEvents;
}
