import { createDomainRegistry } from '../registry/index.ts';
import type { LiveStates } from '../registry/index.ts';
import type { Registry } from '../registry/index.ts';
import { countSchemaCosts } from '../cost/schema-cost.ts';
import type { SchemaCost } from '../cost/schema-cost.ts';
import type { ModelSettings, TrialRecord } from '../spec/index.ts';
import type { PlannedTrial } from './plan.ts';
import {
  TrialAppender,
  readNumberedTrials,
  repairTrials,
  runFile,
  type AppendWrite,
  type TrialLinePlace,
} from '../run-folder/index.ts';
import { ConfigError, type ConfigIssue } from '../spec/index.ts';
import { trialIdentity } from './plan.ts';
import { runTrial, type ToolTime } from './trial.ts';
import type { EarlyStop, EarlyStopReason } from './early-stop.ts';
import type { InFlightTrials } from './blocked-trials.ts';

/** Trials started between two pauses of the worker pool (see `breathe` in executeRun). */
const PAUSE_EVERY = 64;
/**
 * Lines per write of trials.jsonl when every provider is offline (replay,
 * scripted): a replayed trial takes ~0.1 ms, and one write per trial was
 * ~8 % of it. They are written at the next pause at the latest, so a kill
 * loses at most the trials of one stretch between pauses (docs/runner.md).
 * A live trial takes seconds: its line is written at once, as before.
 */
const OFFLINE_BATCH_LINES = PAUSE_EVERY;

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
  /** The trials in flight, for a caller that must record a trial blocked by user code (InFlightTrials). */
  inFlight?: InFlightTrials;
  onStart?(info: { total: number; skipped: number; todo: number }): void;
  onTrialDone?(record: TrialRecord): void;
  /** Each retried model request, with its cause (the CLI prints them). */
  onRetry?(note: { attempt: number; failure: string; waitedMs: number }, planned: PlannedTrial): void;
  /**
   * Sees every record of `trials.jsonl` in file order: those already there
   * (a resumed run), then each new one as it is appended. The CLI feeds the
   * summary and the reports from it, so the file is not read again at the end.
   * A new record comes with where its line is in the file (`place`:
   * `readTrialLinesAt` reads it once the run is over); one already there, without.
   */
  observe?(record: TrialRecord, place?: TrialLinePlace): void;
  /** How the appender writes (a test seam: a write that fails like a full disk). */
  appendWrite?: AppendWrite;
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
  const done = await finishedIdentities(options.runDir, options.plan, options.observe);
  const todo = done.size === 0 ? options.plan : options.plan.filter((planned) => !done.has(planned.identity));
  const skipped = options.plan.length - todo.length;
  options.onStart?.({ total: options.plan.length, skipped, todo: todo.length });

  // Registries hold no trial state, so one per domain is shared.
  const registries = new Map<string, Registry<unknown>>();
  // Every surface's cost counted before the first trial (a worker, unless already counted for the manifest).
  await planSchemaCosts(todo);
  let ran = 0;
  let errored = 0;
  let stopped: EarlyStopReason | null = null;
  // The first failed write to the run folder (a full disk): no trial starts after it, and the
  // model calls in flight are cancelled — their trials could not be saved, so they would be paid for nothing.
  let writeFailure: unknown = null;
  const cancel = new AbortController();
  const failWrites = (error: unknown): void => {
    writeFailure ??= error;
    cancel.abort();
  };
  const appender = new TrialAppender(options.runDir, {
    write: options.appendWrite,
    batchLines: todo.every((planned) => planned.provider.offline) ? OFFLINE_BATCH_LINES : 1,
    onFailure: failWrites,
  });
  // A run blocked by user code, or forced down by a second Ctrl-C, ends without its event loop turning
  // again: the blocked trial and the batch still gathered are written at once, so every finished trial is kept.
  const { inFlight } = options;
  inFlight?.attach(
    (raw, planned) => appender.append(options.finish ? options.finish(raw, planned) : raw),
    () => appender.flush(),
  );
  const signal = options.signal ? AbortSignal.any([options.signal, cancel.signal]) : cancel.signal;

  const runOne = async (planned: PlannedTrial): Promise<void> => {
    // Trials not yet started see the stop when their turn comes.
    if (options.stop?.aborted || stopped || writeFailure !== null) return;
    let registry = registries.get(planned.domain.name);
    if (!registry)
      registries.set(
        planned.domain.name,
        (registry = createDomainRegistry(planned.domain.domain) as Registry<unknown>),
      );
    const input = {
      provider: planned.provider,
      domain: planned.domain.domain,
      surface: planned.surface,
      task: planned.task,
      trial: planned.trial,
      registry,
      settings: options.settings,
      signal,
      toolTime: options.toolTime,
      maxToolOutputBytes: options.maxToolOutputBytes,
      onRetry: options.onRetry
        ? (note: Parameters<NonNullable<ExecuteRunOptions['onRetry']>>[0]) => options.onRetry!(note, planned)
        : undefined,
      live: options.live,
    };
    inFlight?.add(input, planned);
    let raw: TrialRecord;
    try {
      raw = await runTrial(input);
    } finally {
      inFlight?.delete(input);
    }
    if (writeFailure !== null) return;
    const record = options.finish ? options.finish(raw, planned) : raw;
    let place: TrialLinePlace;
    try {
      place = appender.append(record);
    } catch (error) {
      failWrites(error);
      return;
    }
    options.observe?.(record, place);
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
    try {
      appender.flush();
    } catch (error) {
      failWrites(error);
    }
    if (writeFailure !== null)
      throw stoppedByWriteFailure(
        writeFailure,
        appender,
        options.runDir,
        skipped + appender.written,
        todo.length - appender.written,
      );
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

/**
 * The error that ends a run whose trials can no longer be written: the file
 * is cut back to its last whole line (so `--resume` reads it), and the one
 * message says why, what was kept and how to go on.
 */
function stoppedByWriteFailure(
  failure: unknown,
  appender: TrialAppender,
  runDir: string,
  kept: number,
  notRun: number,
): unknown {
  if (!(failure instanceof ConfigError)) return failure;
  const cut = appender.trim();
  const partial = cut > 0 ? ` (a partial last line of ${cut} bytes cut)` : '';
  return new ConfigError({
    file: runFile(runDir, 'trials'),
    message: `${failure.issues[0]!.message.replace(/^cannot write: /, 'cannot write trials: ')}; stopped the run and its model calls: ${kept} trials kept${partial}, ${notRun} still to run`,
    expected: `free space (or make the folder writable), then continue with \`toolmark run --resume ${runDir}\``,
  });
}

/**
 * Identities of the trials already in a run (for resume), each record shown
 * to `observe`. Every line must be a trial of this plan: a line of another
 * model, task, surface or trial number (a file from another run, a hand
 * edit) would be counted in the summary and never run; such lines are
 * refused with their line numbers, before any model is called. A duplicate
 * is refused by the reader (readNumberedTrials).
 */
async function finishedIdentities(
  runDir: string,
  plan: readonly PlannedTrial[],
  observe?: (record: TrialRecord) => void,
): Promise<Set<string>> {
  const done = new Set<string>();
  let planned: Set<string> | null = null;
  const strangers: { record: TrialRecord; line: number }[] = [];
  for await (const { record, line } of readNumberedTrials(runDir, { allowMissing: true })) {
    const identity = trialIdentity(record);
    planned ??= new Set(plan.map((trial) => trial.identity));
    if (!planned.has(identity)) {
      strangers.push({ record, line });
      continue;
    }
    done.add(identity);
    observe?.(record);
  }
  if (strangers.length > 0) throw notInPlan(runFile(runDir, 'trials'), plan, strangers);
  return done;
}

/** Most lines named one by one when trials.jsonl holds trials the plan does not. */
const MAX_NAMED = 10;

function notInPlan(file: string, plan: readonly PlannedTrial[], strangers: { record: TrialRecord; line: number }[]) {
  const models = new Set(plan.map((trial) => `${trial.provider.id}:${trial.provider.model}`));
  const tasks = new Set(plan.map((trial) => `${trial.domain.name}/${trial.task.id}`));
  const surfaces = new Set(plan.map((trial) => `${trial.domain.name}/${trial.surface.id}`));
  const why = (record: TrialRecord): string => {
    const model = `${record.provider}:${record.model}`;
    if (!models.has(model)) return `model ${model} is not one of this run's (${[...models].join(', ')})`;
    if (!tasks.has(`${record.domain}/${record.task}`))
      return `task ${record.domain}/${record.task} is not in this run's plan`;
    if (!surfaces.has(`${record.domain}/${record.surface}`))
      return `surface ${record.surface} of ${record.domain} is not in this run's plan`;
    return `trial ${record.trial} of ${record.domain}/${record.task} on ${record.surface} is not in this run's plan (another shard, or more trials than this run has)`;
  };
  const issues: ConfigIssue[] = strangers.slice(0, MAX_NAMED).map(({ record, line }) => ({
    file,
    line,
    message: why(record),
    expected: 'only trials of the run being resumed: remove these lines, or start a new run',
  }));
  if (strangers.length > MAX_NAMED)
    issues.push({ file, message: `and ${strangers.length - MAX_NAMED} more lines of trials not in this run's plan` });
  return new ConfigError(issues);
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
  // A plan names each surface once per trial (10,000 times in a 10,000-task run): its key made once, not per trial.
  const lastDomain = new Map<object, object>();
  for (const planned of plan) {
    if (lastDomain.get(planned.surface) === planned.domain) continue;
    lastDomain.set(planned.surface, planned.domain);
    const key = surfaceKey(planned);
    if (!payloads.has(key)) payloads.set(key, planned.surface.payload);
  }
  const counted = await countSchemaCosts([...payloads.values()]);
  return new Map([...payloads.keys()].map((key, index) => [key, counted[index]!]));
}
