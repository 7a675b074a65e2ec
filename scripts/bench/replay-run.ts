import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRunFinalizer } from '../../src/cli/finalize-run.ts';
import { loadProject } from '../../src/load/index.ts';
import { RUN_FILES, writeManifest } from '../../src/run-folder/index.ts';
import { loadProjectForRun, rescoreRun } from '../../src/cli/rescore-run.ts';
import { scoreTrial } from '../../src/score/index.ts';
import { executeRun, planSchemaCosts, planTrials, preflight, surfaceKey } from '../../src/solve/index.ts';
import type { Manifest, Task } from '../../src/spec/index.ts';
import { createProviders, parseProviderSpec } from '../../providers/index.ts';

/**
 * The replay figures run the same functions as `toolmark run`
 * (src/cli/commands/run.ts): load → providers → plan → pre-flight →
 * manifest → `executeRun` scoring each trial with `scoreTrial` and feeding
 * it to the run finalizer (aggregation and report collection as the trials
 * stream by) → the finalizer's two steps (summary.json, then the reports,
 * src/cli/finalize-run.ts). Only the CLI's flag handling,
 * progress bar and summary table are left out, so the phases can be timed
 * apart; the bench also runs the real CLI once for the record.
 */

export interface ReplayTimings {
  trials: number;
  errored: number;
  /** Load, providers, plan, pre-flight, manifest (ms). */
  startupMs: number;
  /** executeRun: replay, registry, scoring, appending trials.jsonl, streamed aggregation and report collection (ms). */
  trialsMs: number;
  /** The aggregation's summary → summary.json (ms). */
  summaryMs: number;
  /** Rendering report.md, report.html, junit.xml from the collected trials (ms). */
  reportMs: number;
  /** Trials per second after start-up, up to summary.json (trials + summary phases). */
  throughput: number;
  /** The same, counting the reports too. */
  throughputWithReports: number;
  /** CPU time (user + system, all threads) per phase, ms: on a shared machine wall time also counts waiting for other processes. */
  cpuMs: { trials: number; summary: number; report: number };
  runDir: string;
  trialsBytes: number;
}

const now = () => performance.now();
const cpu = () => { const usage = process.cpuUsage(); return (usage.user + usage.system) / 1000; };

/** Replay the bench project at `root` into `root/results/<runId>` and time each phase. */
export async function timedReplay(root: string, runId: string, hooks: { onTrialDone?: (done: number) => void; onPhase?: (phase: string) => void | Promise<void> } = {}): Promise<ReplayTimings> {
  const started = now();
  // Start-up and trials in their own scope, as in `toolmark run`: the project,
  // the cassettes and the plan are garbage by the time the reports render.
  const { runDir, manifest, outcome, finalizer, afterStartup, cpuStart } = await replayTrials(root, runId, hooks);
  const afterTrials = now();
  const cpuTrials = cpu();
  await hooks.onPhase?.('trials');
  // The finalizer's two steps, timed apart.
  finalizer.writeSummary(runDir);
  const afterSummary = now();
  const cpuSummary = cpu();
  await hooks.onPhase?.('summary');
  writeManifest(runDir, { ...manifest, finished_at: new Date().toISOString() });
  await finalizer.writeReports(runDir);
  const finished = now();
  const cpuFinished = cpu();

  return {
    trials: outcome.ran,
    errored: outcome.errored,
    startupMs: afterStartup - started,
    trialsMs: afterTrials - afterStartup,
    summaryMs: afterSummary - afterTrials,
    reportMs: finished - afterSummary,
    throughput: outcome.ran / ((afterSummary - afterStartup) / 1000),
    throughputWithReports: outcome.ran / ((finished - afterStartup) / 1000),
    cpuMs: { trials: cpuTrials - cpuStart, summary: cpuSummary - cpuTrials, report: cpuFinished - cpuSummary },
    runDir,
    // The size from the file system: reading a 350 MB file to measure it would be the run's peak memory.
    trialsBytes: statSync(path.join(runDir, RUN_FILES.trials)).size,
  };
}

async function replayTrials(root: string, runId: string, hooks: { onTrialDone?: (done: number) => void; onPhase?: (phase: string) => void | Promise<void> }) {
  const project = await loadProject(root);
  const { config } = project;
  const selection = { providers: config.run.providers, surfaces: [], split: config.run.split, trials: config.run.trials, domains: [], task: null, shard: null, allow_stale: false };
  const providers = [];
  for (const text of selection.providers) providers.push(...(await createProviders(parseProviderSpec(text, config.providers), { config, env: {}, root })));
  const settings = { temperature: config.run.temperature, max_tokens: config.run.max_tokens };
  const plan = planTrials(project.domains, providers, selection);
  preflight(plan, { settings });
  const runDir = path.join(root, config.run.out, runId);
  mkdirSync(runDir, { recursive: true });
  const costs = await planSchemaCosts(plan);
  const surfaces = new Map<string, Manifest['surfaces'][number]>();
  const tasks = new Map<string, Manifest['tasks'][number]>();
  for (const domain of project.domains) {
    for (const surface of domain.surfaces) {
      const cost = costs.get(surfaceKey({ domain, surface }))!;
      surfaces.set(surface.id, { domain: domain.name, id: surface.id, hash: surface.hash, schema_tokens: cost.tokens, schema_bytes: cost.bytes });
    }
    for (const task of domain.tasks) tasks.set(task.id, { domain: domain.name, id: task.id, kind: task.kind, split: task.split });
  }
  const manifest: Manifest = {
    v: 1,
    run_id: runId,
    started_at: new Date().toISOString(),
    finished_at: null,
    git_commit: null,
    toolmark_version: '0.0.0-bench',
    node_version: process.version,
    config: { ...config, selection },
    providers: providers.map((provider) => ({ id: selection.providers[0]!, provider: provider.id, model: provider.model, synthetic: (provider as { synthetic?: boolean }).synthetic === true })),
    surfaces: [...surfaces.values()],
    tasks: [...tasks.values()],
    trials: selection.trials,
    shard: null,
    planned: plan.length,
  };
  writeManifest(runDir, manifest);
  // Awaited inside start-up: `toolmark run` hands memory back here, before the trials.
  await hooks.onPhase?.('startup');
  const afterStartup = now();
  const cpuStart = cpu();
  let done = 0;
  const finalizer = createRunFinalizer({ runId, config, synthetic: manifest.providers.some((provider) => provider.synthetic) });

  const outcome = await executeRun({
    runDir,
    plan,
    concurrency: config.run.concurrency,
    settings,
    schemaCosts: costs,
    finish: (record, planned) => scoreTrial(record, planned.task, planned.domain.domain.actions),
    onTrialDone: hooks.onTrialDone && (() => hooks.onTrialDone!((done += 1))),
    observe: (record) => finalizer.add(record),
  });
  return { runDir, manifest, outcome, finalizer, afterStartup, cpuStart };
}

export interface RescoreTimings {
  trials: number;
  /** Loading the project (the run's domains: tasks and actions to grade against), ms. */
  loadMs: number;
  /** `rescoreRun`, as `toolmark report --rescore` runs it: trials.jsonl → scoreTrial → aggregator and report collector → summary.json → reports, ms. */
  rescoreMs: number;
  /** CPU time (user + system, all threads) of load + re-score, ms. */
  cpuMs: number;
  /** Trials whose verdicts came out different from the recorded ones (0 unless the tasks changed). */
  changed: number;
}

/**
 * Re-score an existing run without replaying it, with the function
 * `toolmark report --rescore` runs (src/cli/rescore-run.ts): every recorded
 * trial is graded again against the project's tasks, aggregated into a
 * fresh summary.json, and the reports are re-rendered.
 */
export async function timedRescore(root: string, runDir: string): Promise<RescoreTimings> {
  const started = now();
  const cpuStart = cpu();
  const project = await loadProjectForRun(root, runDir);
  const afterLoad = now();
  const result = await rescoreRun(runDir, project);
  const finished = now();
  return { trials: result.trials, loadMs: afterLoad - started, rescoreMs: finished - afterLoad, cpuMs: cpu() - cpuStart, changed: result.changed };
}
