import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { startSchemaCounter, stopSchemaCounter, type SchemaCost } from '../cost/schema-cost.ts';
import { loadConfig } from '../load/config.ts';
import { loadProject, type LoadedDomain, type Project } from '../load/index.ts';
import {
  RunFolderTransaction,
  asWritten,
  checkRunId,
  createRunId,
  locateRun,
  lockRunFolder,
  openRunFolder,
  readManifest,
  runFile,
  writeManifest,
  type RunLock,
} from '../run-folder/index.ts';
import {
  createEarlyStop,
  executeRun,
  parseShard,
  planSchemaCosts,
  planTrials,
  type RunOutcome,
} from '../solve/index.ts';
import type { RunFacts } from '../report/index.ts';
import {
  ConfigError,
  DEFAULT_USER_CODE_LIMIT_MS,
  Manifest,
  RunSelection,
  Summary,
  type ProjectConfig,
  type SweepPlan,
} from '../spec/index.ts';
import type { RunControl } from './events.ts';
import { createRunFinalizer } from './finalizer.ts';
import { describePlan, gitCommitSoon, manifestConfig, manifestProviders } from './manifest.ts';
import { gradingInputsOf, withGradingInputs } from './grading-inputs.ts';
import { dropPrefetchedCassettes, prefetchRunCassettes, resolveToolTime } from './providers.ts';
import { createProvidersFillingWait } from './cassette-wait.ts';
import { toolmarkVersion } from './version.ts';
import { checkWritable } from './writable.ts';
import { handTasksToPlan, preflightRun, scoreAndLetGo } from './task-lifetime.ts';

/** What every run needs besides its selection. */
interface RunBase extends RunControl {
  /** The project root (toolmark.config.yaml, suites/, heldout/). */
  root: string;
  /** Trials run at once; default from the config. */
  concurrency?: number;
  /** Write every model turn to this cassette (a path relative to the current folder). */
  record?: string;
  /** Environment the providers read their keys from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** `runProject`: a new run of the project at `root`. */
export interface RunProjectOptions extends RunBase {
  /** What to run; each field left out takes the config's default (`run:` in toolmark.config.yaml), or all. */
  selection?: Partial<RunSelection>;
  /** Results folder, relative to `root`; default from the config (`results`). */
  out?: string;
  /** Run id (one folder name); default a timestamp plus a random suffix. */
  runId?: string;
  /** A project already loaded, e.g. with the derived surfaces of a sweep; default: load `root`. */
  project?: Project;
  /** Stored in the manifest: the ladder `sweepProject` built (the reports render it). */
  sweep?: SweepPlan;
}

/** `resumeRun`: continue an interrupted run with the selection its manifest stored. */
export interface ResumeRunOptions extends RunBase {
  /** The run: a folder path, or a run id under the results folder. */
  run: string;
  /** Results folder a run id is looked up in, relative to `root`; default from the config. */
  out?: string;
  /** Replay stale cassettes, on top of what the run was started with. */
  allowStale?: boolean;
}

/** What a run (new or resumed) did. */
export interface RunResult {
  runDir: string;
  runId: string;
  /** As written at the end (finished_at set unless interrupted). */
  manifest: Manifest;
  /** summary.json of every trial in the folder (all of them, unless interrupted). */
  summary: Summary;
  outcome: RunOutcome;
  /** Usage, finish reasons, errors and completeness, as the reports show them. */
  facts: RunFacts;
}

/**
 * Run providers × surfaces × tasks × trials of a project, streamed to
 * `<out>/<run-id>/` (SPEC §3), then its summary and reports — what
 * `toolmark run` does, without the flags and the printing. Every problem
 * of the input is a ConfigError thrown before anything is written or any
 * model is called.
 */
export async function runProject(options: RunProjectOptions): Promise<RunResult> {
  // The schema token counter starts now and loads its tokenizer while the project loads (src/cost/schema-cost.ts).
  startSchemaCounter();
  try {
    return await startProject(options);
  } finally {
    stopSchemaCounter();
    dropPrefetchedCassettes();
  }
}

async function startProject(options: RunProjectOptions): Promise<RunResult> {
  const root = path.resolve(options.root);
  const asked = options.selection ?? {};
  await options.events?.onPhase?.('load');
  // The replay cassettes are read on the second core while the project loads (providers/replay/cassette-prefetch.ts).
  if (!options.project) await prefetchRunCassettes(root, asked.providers);
  const project =
    options.project ?? (await loadProject(root, asked.domains?.length ? { domains: [...asked.domains] } : {}));
  const selection = selectionOf(asked, project.config);
  const resultsDir = path.resolve(root, options.out ?? project.config.run.out);
  const runDir = path.join(resultsDir, options.runId === undefined ? createRunId() : checkRunId(options.runId));
  if (existsSync(runDir))
    throw new ConfigError({
      file: runDir,
      message: 'a run with this id already exists',
      expected: 'a new --run-id, or --resume to continue it',
    });
  checkWritable('--out', path.dirname(runDir), 'folder');
  return executeProject({
    ...options,
    root,
    project,
    ownsProject: !options.project,
    selection,
    runDir,
    resumed: null,
    lock: null,
    allowStale: selection.allow_stale,
  });
}

/**
 * Continue a run that was interrupted (or crashed): the plan is the one its
 * manifest stored, trials already in `trials.jsonl` are skipped, a torn
 * last line is dropped. Refused (ConfigError) when the run has no stored
 * selection or a surface changed since it started.
 */
export async function resumeRun(options: ResumeRunOptions): Promise<RunResult> {
  const root = path.resolve(options.root);
  await options.events?.onPhase?.('load');
  const issues: import('../spec/index.ts').ConfigIssue[] = [];
  const { config } = await loadConfig(root, issues);
  if (issues.length > 0) throw new ConfigError(issues);
  const runDir = locateRun(options.run, path.resolve(root, options.out ?? config.run.out), '--resume');
  // The folder is this process's until the resume ends; what a killed writer left is finished or undone first.
  const lock = openRunFolder(runDir, 'run --resume');
  try {
    for (const note of lock.notes) options.events?.onNote?.(note);
    const resumed = readManifest(runDir);
    const selection = resumableSelection(runDir, resumed);
    // A resumed run loads the domains it was started with.
    const project = await loadProject(root, selection.domains.length ? { domains: selection.domains } : {});
    return await executeProject({
      ...options,
      root,
      project,
      ownsProject: true,
      selection: { ...selection },
      runDir,
      resumed,
      lock,
      allowStale: selection.allow_stale || (options.allowStale ?? false),
    });
  } finally {
    lock.release();
  }
}

/** The selection a run stored, or a ConfigError when the run cannot be resumed (no selection; a merge). */
function resumableSelection(runDir: string, manifest: Manifest): RunSelection {
  const file = runFile(runDir, 'manifest');
  if (manifest.config.merged_from) {
    // Its stored selection is its first shard's: resuming would quietly re-run that shard alone.
    throw new ConfigError({
      file,
      field: 'config.merged_from',
      message: `this run was made by \`toolmark merge\` from ${manifest.config.merged_from.join(', ')}, so it cannot be resumed as a run`,
      expected: `resume the unfinished shard itself, then merge again (into a new --run-id, or after deleting ${runDir})`,
    });
  }
  const selection = manifest.config.selection;
  if (!selection)
    throw new ConfigError({
      file,
      field: 'config.selection',
      message: 'this run has no stored selection, so it cannot be resumed',
    });
  return selection;
}

/** A new run's selection: what was asked, the config's defaults for the rest (checked like a stored one). */
function selectionOf(asked: Partial<RunSelection>, config: ProjectConfig): RunSelection {
  const parsed = RunSelection.safeParse({
    providers: asked.providers?.length ? asked.providers : config.run.providers,
    surfaces: asked.surfaces ?? [],
    split: asked.split ?? config.run.split,
    trials: asked.trials ?? config.run.trials,
    domains: asked.domains ?? [],
    task: asked.task ?? null,
    shard: asked.shard ?? null,
    allow_stale: asked.allow_stale ?? false,
    tool_time: asked.tool_time ?? config.run.tool_time,
  });
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        file: '(run selection)',
        field: issue.path.map(String).join('.'),
        message: issue.message,
        expected: 'a run selection (src/spec/selection.ts)',
      })),
    );
  }
  if (parsed.data.shard) parseShard(parsed.data.shard);
  return parsed.data;
}

interface Prepared extends RunBase {
  project: Project;
  /** Loaded by this run (not a caller's): its task lists are handed over to the plan (`handTasksToPlan`). */
  ownsProject: boolean;
  sweep?: SweepPlan;
  selection: RunSelection;
  runDir: string;
  resumed: Manifest | null;
  /** The folder's lock: taken by a resume before it reads the folder; a new run takes it when it creates the folder. */
  lock: RunLock | null;
  allowStale: boolean;
}

/** Steps 1–4 of a run: pre-flight, manifest, trials, summary and reports. */
async function executeProject(prepared: Prepared): Promise<RunResult> {
  const events = prepared.events ?? {};
  const owner = { lock: prepared.lock };
  try {
    // Start-up and trials in their own scope: the project, the providers (a
    // replay provider holds its cassettes) and the plan are garbage once the
    // trials are done, before the summary and the reports are made.
    const { runId, manifest, outcome, finalizer, interrupted } = await startAndRunTrials(prepared, owner);
    await events.onPhase?.('summary');
    // What the trials left is garbage now; the CLI hands it back before the summary step's large
    // allocations (the manifest of every task written, then read back) land on top of it.
    await events.betweenPhases?.(manifest.planned);
    // Summary, finished manifest and reports are installed together (src/run-folder/transaction.ts):
    // a kill or a Ctrl-C in this phase leaves the folder as it was, or all of them new.
    const finish = new RunFolderTransaction(prepared.runDir, 'end of a run (summary, manifest, reports)');
    try {
      const summary = finalizer.writeSummary(prepared.runDir, finish.write);
      await events.onPhase?.('reports');
      const finished: Manifest = interrupted ? manifest : { ...manifest, finished_at: new Date().toISOString() };
      if (!interrupted) writeManifest(prepared.runDir, finished, finish.write);
      // The reports show the documents as `toolmark report` reads them later, so re-rendering gives the same bytes.
      const facts = await finalizer.writeReports(prepared.runDir, {
        manifest: asWritten(Manifest, finished),
        summary: asWritten(Summary, summary),
        write: finish.write,
      });
      finish.commit();
      return { runDir: prepared.runDir, runId, manifest: finished, summary, outcome, facts };
    } catch (error) {
      finish.abandon();
      finalizer.dispose();
      throw error;
    }
  } finally {
    // A new run's lock is released here; a resume's by resumeRun (release is idempotent).
    owner.lock?.release();
  }
}

async function startAndRunTrials(prepared: Prepared, owner: { lock: RunLock | null }) {
  const { project, selection, runDir, resumed, root } = prepared;
  const { config } = project;
  const events = prepared.events ?? {};
  await events.onPhase?.('preflight');
  const commit = resumed ? null : gitCommitSoon(root);
  // Asked now, awaited after the pre-flight, which needs none of it: the counter's round trip
  // (a process on a busy second core) overlaps the providers, the plan and the pre-flight.
  const counting = countSelectedSurfaces(project.domains, selection);
  // Awaited below; a problem found before then (a ConfigError) is the one reported.
  counting.catch(() => {});
  // The cassette worker may still be reading: its wait is filled (src/run/cassette-wait.ts).
  const providers = await createProvidersFillingWait(selection, {
    config,
    root,
    env: prepared.env ?? process.env,
    record: prepared.record,
    allowStale: prepared.allowStale,
  });
  const synthetic = providers.some((entry) => entry.synthetic);
  // Stored resolved in the manifest's selection: a resume runs on the same kind of time.
  const toolTime = (selection.tool_time = resolveToolTime(
    selection.tool_time,
    providers,
    prepared.record !== undefined,
  ));
  const settings = { temperature: config.run.temperature, max_tokens: config.run.max_tokens };
  const plan = planTrials(
    project.domains,
    providers.map((entry) => entry.provider),
    selection,
  );
  preflightRun(plan, settings);
  const described = describePlan(plan, await counting);
  if (resumed) {
    const changed = resumed.surfaces.filter((old) =>
      described.surfaces.some((now) => now.domain === old.domain && now.id === old.id && now.hash !== old.hash),
    );
    if (changed.length > 0) {
      throw new ConfigError({
        file: runFile(runDir, 'manifest'),
        message: `surface ${changed.map((surface) => `\`${surface.id}\``).join(', ')} changed since this run started, so resuming would mix two versions`,
        expected: 'the same surfaces, or a new run',
      });
    }
  }

  // The manifest, before the first trial.
  const runId = resumed?.run_id ?? path.basename(runDir);
  const inputs = gradingInputsOf(
    project,
    described.tasks.map((task) => task.domain),
  );
  const manifest: Manifest = resumed
    ? withGradingInputs(resumed, inputs)
    : {
        v: 1,
        run_id: runId,
        started_at: new Date().toISOString(),
        finished_at: null,
        git_commit: await commit,
        toolmark_version: toolmarkVersion(),
        node_version: process.version,
        config: manifestConfig(config, selection, root),
        providers: manifestProviders(providers, root),
        ...described,
        trials: selection.trials,
        shard: selection.shard,
        planned: plan.length,
        ...(inputs ? { grading_inputs: inputs } : {}),
        ...(prepared.sweep ? { sweep: prepared.sweep } : {}),
      };
  if (!resumed) owner.lock = claimNewRunFolder(runDir);
  writeManifest(runDir, { ...manifest, finished_at: null });
  if (prepared.ownsProject) handTasksToPlan(project);
  // Loading, cassettes, planning, pre-flight: what start-up made and no trial
  // needs is garbage now (the CLI hands it back before the trials' heap grows on top).
  await events.betweenPhases?.(manifest.planned);
  await events.onPhase?.('trials');

  // Summary and reports are fed as the trials stream by (the resumed part, then each new trial).
  const finalizer = createRunFinalizer({ runId, config, synthetic, events, manifest });
  const outcome = await executeRun({
    runDir,
    plan,
    concurrency: prepared.concurrency ?? config.run.concurrency,
    settings,
    toolTime,
    maxToolOutputBytes: config.run.max_tool_output_bytes,
    stop: prepared.stop,
    signal: prepared.signal,
    // Failures that will not heal (bad key, unknown model, the same refusal every time) stop the run (src/solve/early-stop.ts).
    earlyStop: config.run.early_stop === false ? undefined : createEarlyStop(),
    onRetry:
      events.onRetry &&
      ((note, planned) =>
        events.onRetry!(note, {
          provider: planned.provider.id,
          model: planned.provider.model,
          domain: planned.domain.name,
          task: planned.task.id,
          surface: planned.surface.id,
          trial: planned.trial,
        })),
    live: prepared.live,
    inFlight: prepared.inFlight,
    finish: scoreAndLetGo,
    onStart:
      events.onStart &&
      ((info) =>
        events.onStart!({
          ...info,
          planned: manifest.planned,
          live: providers.some((entry) => !entry.offline),
          runDir,
          userCodeLimitMs: config.run.user_code_limit_ms ?? DEFAULT_USER_CODE_LIMIT_MS,
        })),
    onTrialDone: events.onTrial && ((record) => events.onTrial!(record)),
    observe: (record, place) => finalizer.add(record, place),
  }).catch((error: unknown) => {
    // A small run's chart worker is already up (src/run/finalizer.ts): a run that fails ends it too.
    finalizer.dispose();
    throw error;
  });
  // The plan (with the providers and their cassettes) is garbage from here on, but for what the trials in flight were attached to.
  prepared.inFlight?.detach();
  return { runId, manifest, outcome, finalizer, interrupted: outcome.interrupted };
}

/**
 * Create a new run's folder and take its lock. The folder itself is created
 * exclusively (no `recursive` for the last step): of two runs started with
 * one `--run-id`, the second is refused here, before it writes anything.
 */
function claimNewRunFolder(runDir: string): RunLock {
  mkdirSync(path.dirname(runDir), { recursive: true });
  try {
    mkdirSync(runDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new ConfigError({
      file: runDir,
      message: 'a run with this id already exists (another run with this --run-id started meanwhile?)',
      expected: 'a new --run-id, or --resume to continue it',
    });
  }
  return lockRunFolder(runDir, 'run');
}

/**
 * The schema cost of every surface the selection may plan (`planSchemaCosts`),
 * counted by the child process started with the run (src/cost/schema-cost.ts).
 * Surfaces of the selection no trial turns out to use (none of their tasks
 * in the split) are counted too: a few milliseconds.
 */
function countSelectedSurfaces(
  domains: readonly LoadedDomain[],
  selection: RunSelection,
): Promise<Map<string, SchemaCost>> {
  const selected = domains.flatMap((domain) =>
    domain.surfaces
      .filter((surface) => selection.surfaces.length === 0 || selection.surfaces.includes(surface.id))
      .map((surface) => ({ domain, surface })),
  );
  return planSchemaCosts(selected);
}
