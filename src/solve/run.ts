import { createDomainRegistry } from '../registry/index.ts';
import type { LiveStates } from '../registry/index.ts';
import type { Registry } from '../registry/index.ts';
import { countSchemaCosts } from '../cost/schema-cost.ts';
import type { SchemaCost } from '../cost/schema-cost.ts';
import type { ModelSettings, TrialRecord } from '../spec/index.ts';
import type { PlannedTrial } from './plan.ts';
import { TrialAppender, readTrials, repairTrials } from '../run-folder/index.ts';
import { trialIdentity } from './plan.ts';
import { runTrial, type ToolTime } from './trial.ts';
import type { EarlyStop, EarlyStopReason } from './early-stop.ts';

/** Trials started between two pauses of the worker pool (see `breathe` in executeRun). */
const PAUSE_EVERY = 64;

export interface ExecuteRunOptions {
  /** The run folder; its manifest is already written. */
  runDir: string;
  plan: readonly PlannedTrial[];
  concurrency: number;
  settings?: ModelSettings;
  /** Real or simulated tool time for every trial (TrialInput.toolTime); default real. */
  toolTime?: ToolTime;
  /** Cap on one tool result (TrialInput.maxToolOutputBytes); default DEFAULT_MAX_TOOL_OUTPUT_BYTES. */
  maxToolOutputBytes?: number;
  /** Turns a raw record into the one written (the CLI scores it here). */
  finish?: (record: TrialRecord, planned: PlannedTrial) => TrialRecord;
  /** Aborted = schedule no more trials; trials in flight finish and are written. */
  stop?: AbortSignal;
  /** Stops scheduling when failures will not heal (createEarlyStop); trials in flight finish and are written. */
  earlyStop?: EarlyStop;
  /** Passed to providers; aborting it cancels in-flight model calls (a second Ctrl-C). */
  signal?: AbortSignal;
  /** Domain states of the trials in flight, for a caller that must quit at once to tear them down (`live.drain()`). */
  live?: LiveStates;
  onStart?(info: { total: number; skipped: number; todo: number }): void;
  onTrialDone?(record: TrialRecord): void;
  /** Each retried model request, with its cause (the CLI prints them). */
  onRetry?(note: { attempt: number; failure: string; waitedMs: number }, planned: PlannedTrial): void;
  /**
   * Sees every record of `trials.jsonl` in file order: those already there
   * (a resumed run), then each new one as it is appended. The CLI feeds the
   * summary and the reports from it, so the file is not read again at the end.
   */
  observe?(record: TrialRecord): void;
}

export interface RunOutcome {
  planned: number;
  /** Already in trials.jsonl (resume). */
  skipped: number;
  /** Run and written now. */
  ran: number;
  errored: number;
  /** Torn bytes dropped from the end of trials.jsonl. */
  repairedBytes: number;
  /** Stopped early: some planned trials were not run. */
  interrupted: boolean;
  /** Set when `earlyStop` stopped the run (then `interrupted` is true too). */
  stopped: EarlyStopReason | null;
}

/**
 * Run the planned trials with bounded concurrency, appending each finished
 * trial to `trials.jsonl` at once. Trials already in the file are skipped,
 * so calling this again on the same folder resumes the run; a torn last line
 * from a crash is dropped first.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<RunOutcome> {
  const repairedBytes = repairTrials(options.runDir);
  const done = await finishedIdentities(options.runDir, options.observe);
  const todo = done.size === 0 ? options.plan : options.plan.filter((planned) => !done.has(planned.identity));
  const skipped = options.plan.length - todo.length;
  options.onStart?.({ total: options.plan.length, skipped, todo: todo.length });

  // Registries hold no trial state, so one per domain is shared.
  const registries = new Map<string, Registry<unknown>>();
  // Every surface's cost counted before the first trial (a worker, unless already counted for the manifest).
  await planSchemaCosts(todo);
  const appender = new TrialAppender(options.runDir);
  let ran = 0;
  let errored = 0;
  let stopped: EarlyStopReason | null = null;

  const runOne = async (planned: PlannedTrial): Promise<void> => {
    // Trials not yet started see the stop when their turn comes.
    if (options.stop?.aborted || stopped) return;
    let registry = registries.get(planned.domain.name);
    if (!registry)
      registries.set(
        planned.domain.name,
        (registry = createDomainRegistry(planned.domain.domain) as Registry<unknown>),
      );
    const raw = await runTrial({
      provider: planned.provider,
      domain: planned.domain.domain,
      surface: planned.surface,
      task: planned.task,
      trial: planned.trial,
      registry,
      settings: options.settings,
      signal: options.signal,
      toolTime: options.toolTime,
      maxToolOutputBytes: options.maxToolOutputBytes,
      onRetry: options.onRetry ? (note) => options.onRetry!(note, planned) : undefined,
      live: options.live,
    });
    const record = options.finish ? options.finish(raw, planned) : raw;
    appender.append(record);
    options.observe?.(record);
    ran += 1;
    if (record.status === 'errored') errored += 1;
    stopped ??= options.earlyStop?.observe(record) ?? null;
    options.onTrialDone?.(record);
  };

  let next = 0;
  // Replayed trials never wait for I/O: without a pause the whole run would be
  // one stretch of microtasks, and nothing else could run until it ended — not
  // a timer, not the Ctrl-C handler (a SIGINT is delivered by the event loop).
  // Every PAUSE_EVERY trials all workers wait for one setImmediate together;
  // counted in trials, not time, so a replay keeps its deterministic order.
  let pause: Promise<void> | null = null;
  const breathe = async (): Promise<void> => {
    if (pause === null && (next === 0 || next % PAUSE_EVERY !== 0)) return;
    pause ??= new Promise((resolve) =>
      setImmediate(() => {
        pause = null;
        resolve();
      }),
    );
    await pause;
  };

  // A fixed pool of workers pulls the next planned trial, rather than one queued
  // promise per trial: a 100,000-trial run would otherwise hold 100,000 closures
  // from the start. Like allSettled, a failed trial does not stop the others;
  // the failure of the earliest planned trial is thrown at the end.
  let failure: { index: number; reason: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      await breathe();
      if (next >= todo.length) break;
      const index = next;
      next += 1;
      try {
        await runOne(todo[index]!);
      } catch (reason) {
        if (!failure || index < failure.index) failure = { index, reason };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(Math.max(1, options.concurrency), todo.length) }, worker));
    if (failure) throw (failure as { reason: unknown }).reason;
  } finally {
    appender.close();
    // Whatever outlives a trial (an MCP domain's open servers) ends with the run: on success, on error, on Ctrl-C.
    const domains = new Set(options.plan.map((planned) => planned.domain.domain));
    await Promise.allSettled([...domains].map((domain) => domain.close?.()));
  }
  return {
    planned: options.plan.length,
    skipped,
    ran,
    errored,
    repairedBytes,
    interrupted: skipped + ran < options.plan.length,
    stopped,
  };
}

/** Identities of the trials already in a run (for resume), each record shown to `observe`. */
async function finishedIdentities(runDir: string, observe?: (record: TrialRecord) => void): Promise<Set<string>> {
  const done = new Set<string>();
  for await (const record of readTrials(runDir, { allowMissing: true })) {
    done.add(trialIdentity(record));
    observe?.(record);
  }
  return done;
}

/** Key of a planned trial's surface (domain, id and content hash) for per-surface caches. */
export function surfaceKey(planned: Pick<PlannedTrial, 'domain' | 'surface'>): string {
  return `${planned.domain.name}\n${planned.surface.id}\n${planned.surface.hash}`;
}

/**
 * The schema cost of every surface of a plan, by `surfaceKey`: counted
 * together in one short-lived worker (src/cost), so the tokenizer is not
 * resident while the trials run.
 */
export async function planSchemaCosts(
  plan: Iterable<Pick<PlannedTrial, 'domain' | 'surface'>>,
): Promise<Map<string, SchemaCost>> {
  const payloads = new Map<string, unknown>();
  for (const planned of plan) {
    const key = surfaceKey(planned);
    if (!payloads.has(key)) payloads.set(key, planned.surface.payload);
  }
  const counted = await countSchemaCosts([...payloads.values()]);
  return new Map([...payloads.keys()].map((key, index) => [key, counted[index]!]));
}
