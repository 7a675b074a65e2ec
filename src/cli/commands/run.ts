import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../spec/errors.ts';
import { collect, toolmarkVersion } from '../cli-helpers.ts';
import type { Manifest, ProjectConfig, Provider, Summary, TrialRecord } from '../../spec/index.ts';

// Heavy modules (loader, SDKs, scorers, renderers) are imported inside the
// action, so `toolmark --help` stays fast.

interface RunFlags {
  provider: string[];
  surface: string[];
  split?: string;
  trials?: string;
  concurrency?: string;
  domain: string[];
  task?: string;
  record?: string;
  resume?: string;
  shard?: string;
  out?: string;
  runId?: string;
  allowStale?: boolean;
  toolTime?: string;
  root?: string;
}

/** What a run selects, stored in the manifest so `--resume` replays exactly the same plan. */
export interface StoredSelection {
  providers: string[];
  surfaces: string[];
  split: 'train' | 'heldout' | 'all';
  trials: number;
  domains: string[];
  task: string | null;
  shard: string | null;
  allow_stale: boolean;
  /** As asked (flag or config); the manifest stores it resolved (`real` or `simulated`), so a resume keeps it. Absent in older runs: auto. */
  tool_time?: 'auto' | 'real' | 'simulated';
}


function positiveInteger(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError({ file: flag, field: text, message: 'not a positive whole number', expected: 'an integer ≥ 1' });
  return value;
}

function toolTimeOf(text: string | undefined, fallback: NonNullable<StoredSelection['tool_time']>): NonNullable<StoredSelection['tool_time']> {
  if (text === undefined) return fallback;
  if (text === 'auto' || text === 'real' || text === 'simulated') return text;
  throw new ConfigError({ file: '--tool-time', field: text, message: `unknown tool time "${text}"`, expected: 'auto, real or simulated' });
}

/**
 * `auto` tool time: simulated when no provider talks to a live model and no
 * cassette is recorded (a replay has nothing to wait for), else real.
 */
function resolveToolTime(asked: StoredSelection['tool_time'], providers: RunProvider[], recording: boolean): 'real' | 'simulated' {
  if (asked === 'real' || asked === 'simulated') return asked;
  return !recording && providers.every((entry) => entry.offline) ? 'simulated' : 'real';
}

function splitOf(text: string | undefined, fallback: StoredSelection['split']): StoredSelection['split'] {
  if (text === undefined) return fallback;
  if (text === 'train' || text === 'heldout' || text === 'all') return text;
  throw new ConfigError({ file: '--split', field: text, message: `unknown split "${text}"`, expected: 'train, heldout or all' });
}

/** A path as the user would type it: relative when under the current folder. */
export function displayPath(target: string): string {
  const relative = path.relative(process.cwd(), target);
  return relative === '' ? '.' : relative.startsWith('..') ? target : relative;
}

/** Resolve `--resume RUN`: a folder path, or a run id under the output folder. */
function resolveRunDir(run: string, outDir: string): string {
  return path.isAbsolute(run) || run.includes(path.sep) ? path.resolve(run) : path.join(outDir, run);
}

type Solve = typeof import('../../solve/index.ts');
type RunFolder = typeof import('../../run-folder/index.ts');

/** The selection of a new run (config defaults, flags override), or the stored one of a resumed run. */
function chooseSelection(flags: RunFlags, config: ProjectConfig, outDir: string, solve: Solve, runFolder: RunFolder, exists: (file: string) => boolean): { selection: StoredSelection; runDir: string; resumed: Manifest | null } {
  if (flags.resume) {
    const runDir = resolveRunDir(flags.resume, outDir);
    const resumed = runFolder.readManifest(runDir);
    const selection = (resumed.config as { selection?: StoredSelection }).selection;
    if (!selection) throw new ConfigError({ file: path.join(runDir, 'manifest.json'), field: 'config.selection', message: 'this run has no stored selection, so it cannot be resumed' });
    return { selection, runDir, resumed };
  }
  const selection: StoredSelection = {
    providers: flags.provider.length ? flags.provider : config.run.providers,
    surfaces: flags.surface,
    split: splitOf(flags.split, config.run.split),
    trials: positiveInteger('--trials', flags.trials) ?? config.run.trials,
    domains: flags.domain,
    task: flags.task ?? null,
    shard: flags.shard ?? null,
    allow_stale: flags.allowStale ?? false,
    tool_time: toolTimeOf(flags.toolTime, config.run.tool_time),
  };
  if (selection.shard) solve.parseShard(selection.shard);
  const runDir = path.join(outDir, flags.runId === undefined ? runFolder.createRunId() : runFolder.checkRunId(flags.runId));
  if (exists(runDir)) throw new ConfigError({ file: runDir, message: 'a run with this id already exists', expected: 'a new --run-id, or --resume to continue it' });
  return { selection, runDir, resumed: null };
}

interface RunProvider {
  spec: string;
  provider: Provider;
  synthetic: boolean;
  /** Replay or scripted: no live model behind it. */
  offline: boolean;
}

/**
 * A path the run will write (`--record FILE`, `--out DIR`) must be usable
 * before anything runs — a bad one would otherwise fail every trial, or
 * crash after the manifest — yet nothing is created until it is needed:
 * check the path itself, or the nearest folder above it that exists.
 */
async function checkWritable(flag: string, target: string, kind: 'file' | 'folder'): Promise<void> {
  const { accessSync, constants, statSync } = await import('node:fs');
  const what = kind === 'file' ? 'the cassette' : 'results';
  const refuse = (why: string) => new ConfigError({ file: flag, field: target, message: `cannot write ${what} here: ${why}`, expected: kind === 'file' ? 'a file path in a writable folder' : 'a writable folder (or a path where one can be made)' });
  for (let current = target; ; current = path.dirname(current)) {
    let stats;
    try {
      stats = statSync(current);
    } catch {
      if (path.dirname(current) === current) throw refuse('no folder above it exists');
      continue;
    }
    if (current === target && kind === 'file' && stats.isDirectory()) throw refuse('it is a folder');
    if ((current !== target || kind === 'folder') && !stats.isDirectory()) throw refuse(`${current} is not a folder`);
    try {
      accessSync(current, constants.W_OK);
    } catch {
      throw refuse(`${current} is not writable`);
    }
    return;
  }
}

/** Parse and create every provider (keys checked, nothing called), wrapped for recording if asked. */
async function createRunProviders(selection: StoredSelection, options: { config: ProjectConfig; root: string; record?: string; allowStale: boolean }): Promise<RunProvider[]> {
  const { parseProviderSpec, createProviders } = await import('../../../providers/index.ts');
  const { recordingProvider, createCassetteWriter } = await import('../../../providers/recording.ts');
  if (options.record) await checkWritable('--record', path.resolve(options.record), 'file');
  const writer = options.record ? createCassetteWriter(path.resolve(options.record)) : null;
  const providers: RunProvider[] = [];
  for (const text of selection.providers) {
    const spec = parseProviderSpec(text, options.config.providers);
    for (const provider of await createProviders(spec, { config: options.config, env: process.env, root: options.root, allowStale: options.allowStale })) {
      const synthetic = (provider as { synthetic?: boolean }).synthetic === true;
      providers.push({ spec: text, provider: writer ? recordingProvider(provider, writer) : provider, synthetic, offline: spec.kind === 'replay' || spec.kind === 'scripted' });
    }
  }
  return providers;
}

type SchemaCosts = Map<string, import('../../cost/schema-cost.ts').SchemaCost>;

/**
 * The schema cost of every surface the selection may plan (`planSchemaCosts`).
 * Counted before the providers exist: the count runs in a worker thread
 * whose ~40 MB come on top of the process while it runs, and before the
 * providers load their cassettes the process is at its smallest (a
 * 100,000-trial replay's start-up peak was this worker over a heap holding
 * the cassettes). Surfaces of the selection no trial turns out to use
 * (none of their tasks in the split) are counted too: a few milliseconds.
 */
async function countSelectedSurfaces(domains: Parameters<Solve['planTrials']>[0], selection: StoredSelection, solve: Solve): Promise<SchemaCosts> {
  const selected = domains.flatMap((domain) => domain.surfaces.filter((surface) => selection.surfaces.length === 0 || selection.surfaces.includes(surface.id)).map((surface) => ({ domain, surface })));
  return solve.planSchemaCosts(selected);
}

/** Surfaces (with hash and schema cost) and tasks of a plan, as the manifest lists them. */
function describePlan(plan: ReturnType<Solve['planTrials']>, costs: SchemaCosts, solve: Solve): Pick<Manifest, 'surfaces' | 'tasks'> {
  const surfaces = new Map<string, Manifest['surfaces'][number]>();
  const tasks = new Map<string, Manifest['tasks'][number]>();
  for (const planned of plan) {
    const surfaceKey = `${planned.domain.name}/${planned.surface.id}`;
    if (!surfaces.has(surfaceKey)) {
      const cost = costs.get(solve.surfaceKey(planned))!;
      surfaces.set(surfaceKey, { domain: planned.domain.name, id: planned.surface.id, hash: planned.surface.hash, schema_tokens: cost.tokens, schema_bytes: cost.bytes });
    }
    tasks.set(`${planned.domain.name}/${planned.task.id}`, { domain: planned.domain.name, id: planned.task.id, kind: planned.task.kind, split: planned.task.split });
  }
  return { surfaces: [...surfaces.values()], tasks: [...tasks.values()] };
}

/** The git commit of the project, if it is a git checkout. */
async function gitCommit(root: string): Promise<string | null> {
  const { execFileSync } = await import('node:child_process');
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
  } catch {
    return null;
  }
}

async function runAction(flags: RunFlags, setExitCode: (code: number) => void): Promise<void> {
  (await import('../heap-policy.ts')).limitHeapGrowth();
  const runFolder = await import('../../run-folder/index.ts');
  const { formatSummaryTable } = await import('../summary-table.ts');
  // Steps 1–3 in their own scope: the project, the providers (a replay
  // provider holds its cassettes) and the plan are garbage once the trials
  // are done, before the summary and the reports are made.
  const { runDir, runId, manifest, outcome, finalizer } = await startAndRunTrials(flags);

  // 4. Summary and reports of what finished (all of it, unless interrupted).
  // The run is finished once its summary is written: the reports then show
  // the same manifest `toolmark report` reads later, so re-rendering gives the same bytes.
  const summary = finalizer.writeSummary(runDir);
  if (!outcome.interrupted) runFolder.writeManifest(runDir, { ...manifest, finished_at: new Date().toISOString() });
  await finalizer.writeReports(runDir);
  process.stdout.write(`${formatSummaryTable(summary)}\n\n`);
  const shown = displayPath(runDir);
  const repaired = outcome.repairedBytes > 0 ? `, dropped a torn last line (${outcome.repairedBytes} bytes)` : '';
  process.stdout.write(`run ${runId}: ${outcome.ran} trials run, ${outcome.skipped} already done, ${outcome.errored} errored${repaired} → ${shown}/\n`);
  if (outcome.interrupted) {
    process.stdout.write(`interrupted with ${outcome.planned - outcome.ran - outcome.skipped} trials left; continue with: toolmark run --resume ${shown}\n`);
    setExitCode(130);
  }
}

/** Load, plan, pre-flight, write the manifest and run the trials (steps 1–3 of `toolmark run`). */
async function startAndRunTrials(flags: RunFlags) {
  const { loadProject } = await import('../../load/index.ts');
  const solve = await import('../../solve/index.ts');
  const runFolder = await import('../../run-folder/index.ts');
  const { createRunFinalizer } = await import('../finalize-run.ts');
  const { scoreTrial } = await import('../../score/index.ts');
  const { createProgress } = await import('../progress.ts');
  const { mkdirSync, existsSync } = await import('node:fs');

  // 1. Load and validate everything; any problem is a ConfigError (exit 2) with nothing written.
  const root = path.resolve(flags.root ?? '.');
  const concurrency = positiveInteger('--concurrency', flags.concurrency);
  const firstLoad = await loadProject(root, flags.domain.length ? { domains: flags.domain } : {});
  const config = firstLoad.config;
  const { selection, runDir, resumed } = chooseSelection(flags, config, path.resolve(root, flags.out ?? config.run.out), solve, runFolder, existsSync);
  if (!resumed) await checkWritable('--out', path.dirname(runDir), 'folder');
  // A resumed run loads the domains it was started with.
  const project = resumed && selection.domains.join() !== flags.domain.join() ? await loadProject(root, selection.domains.length ? { domains: selection.domains } : {}) : firstLoad;
  const costs = await countSelectedSurfaces(project.domains, selection, solve);
  const providers = await createRunProviders(selection, { config, root, record: flags.record, allowStale: selection.allow_stale || (flags.allowStale ?? false) });
  const synthetic = providers.some((entry) => entry.synthetic);
  // Stored resolved in the manifest's selection: a resume runs on the same kind of time.
  const toolTime = (selection.tool_time = resolveToolTime(selection.tool_time, providers, flags.record !== undefined));
  const settings = { temperature: config.run.temperature, max_tokens: config.run.max_tokens };
  const plan = solve.planTrials(project.domains, providers.map((entry) => entry.provider), selection);
  // Replay checks every trial's first turn now: a stale or incomplete cassette stops here.
  solve.preflight(plan, { settings });
  const described = describePlan(plan, costs, solve);
  if (resumed) {
    const changed = resumed.surfaces.filter((old) => described.surfaces.some((now) => now.domain === old.domain && now.id === old.id && now.hash !== old.hash));
    if (changed.length > 0) {
      throw new ConfigError({ file: path.join(runDir, 'manifest.json'), message: `surface ${changed.map((surface) => `\`${surface.id}\``).join(', ')} changed since this run started, so resuming would mix two versions`, expected: 'the same surfaces, or a new run' });
    }
  }

  // 2. The manifest, before the first trial.
  const runId = resumed?.run_id ?? path.basename(runDir);
  const manifest: Manifest = resumed ?? {
    v: 1,
    run_id: runId,
    started_at: new Date().toISOString(),
    finished_at: null,
    git_commit: await gitCommit(root),
    toolmark_version: toolmarkVersion(),
    node_version: process.version,
    config: { ...config, selection },
    providers: providers.map((entry) => ({ id: entry.spec, provider: entry.provider.id, model: entry.provider.model, synthetic: entry.synthetic })),
    ...described,
    trials: selection.trials,
    shard: selection.shard,
    planned: plan.length,
  };
  mkdirSync(runDir, { recursive: true });
  runFolder.writeManifest(runDir, { ...manifest, finished_at: null });
  // Loading, cassettes, planning, pre-flight: what start-up made and no trial
  // needs is garbage now; hand it back before the trials' heap grows on top.
  await (await import('../heap-policy.ts')).releaseMemory();

  // 3. The trials. Ctrl-C once: schedule nothing more, let trials in flight finish.
  // Twice: leave now (trials.jsonl holds whole lines plus at most one torn line, which resume drops).
  const stop = new AbortController();
  // Domain states of trials in flight: quitting at once still tears them down (servers, temp folders).
  const live = new solve.LiveStates();
  const onInterrupt = () => {
    if (stop.signal.aborted) {
      void live.drain().finally(() => process.exit(130));
      return;
    }
    stop.abort();
    process.stderr.write('\ninterrupted: finishing the trials in flight (Ctrl-C again to quit now)…\n');
  };
  process.on('SIGINT', onInterrupt);
  const progress = createProgress(process.stderr);
  // Summary and reports are fed as the trials stream by (the resumed part, then each new trial).
  const finalizer = createRunFinalizer({ runId, config, synthetic });
  let outcome: Awaited<ReturnType<Solve['executeRun']>>;
  try {
    outcome = await solve.executeRun({
      runDir,
      plan,
      concurrency: concurrency ?? config.run.concurrency,
      settings,
      toolTime,
      schemaCosts: costs,
      stop: stop.signal,
      live,
      finish: (record: TrialRecord, planned) => scoreTrial(record, planned.task, planned.domain.domain.actions),
      onStart: (info) => progress.start(info),
      onTrialDone: (record) => progress.tick(record),
      observe: (record) => finalizer.add(record),
    });
  } finally {
    progress.stop();
    process.off('SIGINT', onInterrupt);
  }
  return { runDir, runId, manifest, outcome, finalizer };
}

/** `toolmark run`: providers × surfaces × tasks × trials, streamed to results/<run-id>/. */
export function describe(program: Command, setExitCode: (code: number) => void): Command {
  return program
    .command('run')
    .description('Run tasks × surfaces × trials against providers; stream each trial to results/<run-id>/trials.jsonl')
    .option('--provider <spec>', 'replay[:PATH,…] | openai:MODEL | openai-responses:MODEL | openai-compatible:MODEL@URL | anthropic:MODEL | a config preset (repeatable)', collect, [])
    .option('--surface <id>', 'surface id (repeatable; default: all)', collect, [])
    .option('--split <split>', 'train | heldout | all')
    .option('--trials <n>', 'trials per task × surface × provider')
    .option('--concurrency <n>', 'trials run at once')
    .option('--domain <name>', 'domain to run (repeatable; default: all)', collect, [])
    .option('--task <glob>', 'only tasks whose id matches (* and ?)')
    .option('--record <file>', 'write every model turn to this cassette (JSONL)')
    .option('--resume <run>', 'continue an interrupted run (run id or folder)')
    .option('--shard <i/n>', 'run only shard i of n (CI matrix); merge with `toolmark merge`')
    .option('--out <dir>', 'results folder (default from config: results)')
    .option('--run-id <id>', 'run id (default: timestamp + random suffix)')
    .option('--allow-stale', 'replay cassettes even when the surface or task changed since recording')
    .option('--tool-time <mode>', 'auto | real | simulated: simulated time runs tool sleeps (simulated latency, timeouts) without waiting; auto = simulated when every provider is offline (default from config: auto)')
    .option('--root <dir>', 'project root (default: current folder)')
    .action(async (flags: RunFlags) => runAction(flags, setExitCode));
}
