import path from 'node:path';
import pLimit from 'p-limit';
import { createRegistry } from '../registry/index.ts';
import type { Registry } from '../registry/index.ts';
import { schemaCost } from '../cost/schema-cost.ts';
import type { SchemaCost } from '../cost/schema-cost.ts';
import type { ModelSettings, TrialRecord } from '../spec/index.ts';
import type { PlannedTrial } from './plan.ts';
import { RUN_FILES, TrialAppender, finishedIdentities, repairTrials } from './run-folder.ts';
import { runTrial } from './trial.ts';

export interface ExecuteRunOptions {
  /** The run folder; its manifest is already written. */
  runDir: string;
  plan: readonly PlannedTrial[];
  concurrency: number;
  settings?: ModelSettings;
  /** Turns a raw record into the one written (the CLI scores it here). */
  finish?: (record: TrialRecord, planned: PlannedTrial) => TrialRecord;
  /** Aborted = schedule no more trials; trials in flight finish and are written. */
  stop?: AbortSignal;
  /** Passed to providers; aborting it cancels in-flight model calls (a second Ctrl-C). */
  signal?: AbortSignal;
  onStart?(info: { total: number; skipped: number; todo: number }): void;
  onTrialDone?(record: TrialRecord): void;
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
}

/**
 * Run the planned trials with bounded concurrency, appending each finished
 * trial to `trials.jsonl` at once. Trials already in the file are skipped,
 * so calling this again on the same folder resumes the run; a torn last line
 * from a crash is dropped first.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<RunOutcome> {
  const file = path.join(options.runDir, RUN_FILES.trials);
  const repairedBytes = repairTrials(file);
  const done = await finishedIdentities(file);
  const todo = options.plan.filter((planned) => !done.has(planned.identity));
  const skipped = options.plan.length - todo.length;
  options.onStart?.({ total: options.plan.length, skipped, todo: todo.length });

  // Registries and schema costs hold no trial state, so one per domain / surface is shared.
  const registries = new Map<string, Registry<unknown>>();
  const costs = new Map<string, SchemaCost>();
  const appender = new TrialAppender(file);
  const limit = pLimit(Math.max(1, options.concurrency));
  let ran = 0;
  let errored = 0;

  const runOne = async (planned: PlannedTrial): Promise<void> => {
    // Queued trials see the stop when their turn comes (clearQueue would leave their promises pending forever).
    if (options.stop?.aborted) return;
    let registry = registries.get(planned.domain.name);
    if (!registry) registries.set(planned.domain.name, (registry = createRegistry(planned.domain.domain.tools) as Registry<unknown>));
    const costKey = `${planned.domain.name}\n${planned.surface.id}\n${planned.surface.hash}`;
    let cost = costs.get(costKey);
    if (!cost) costs.set(costKey, (cost = schemaCost(planned.surface.payload)));
    const raw = await runTrial({
      provider: planned.provider,
      domain: planned.domain.domain,
      surface: planned.surface,
      task: planned.task,
      trial: planned.trial,
      registry,
      settings: options.settings,
      schemaCost: cost,
      signal: options.signal,
    });
    const record = options.finish ? options.finish(raw, planned) : raw;
    appender.append(record);
    ran += 1;
    if (record.status === 'errored') errored += 1;
    options.onTrialDone?.(record);
  };

  try {
    const settled = await Promise.allSettled(todo.map((planned) => limit(() => runOne(planned))));
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
  } finally {
    appender.close();
  }
  return { planned: options.plan.length, skipped, ran, errored, repairedBytes, interrupted: skipped + ran < options.plan.length };
}
