import { statSync } from 'node:fs';
import path from 'node:path';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { loadProjectForRun, rescoreRun, runProject, type RunEvents } from '../../src/run/index.ts';

/**
 * The replay figures run `runProject` (src/run/), the function `toolmark
 * run` calls, with the CLI's heap hook; only the CLI's flag handling,
 * progress bar and summary table are left out. The phases are timed from
 * the run's own events (`onPhase`), so the figures split start-up, trials,
 * summary and reports; the bench also runs the real CLI once for the record.
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
const cpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Replay the bench project at `root` into `root/results/<runId>` and time each phase. */
export async function timedReplay(
  root: string,
  runId: string,
  hooks: Pick<RunEvents, 'onStart' | 'betweenPhases'> & { onTrialDone?: (done: number) => void } = {},
): Promise<ReplayTimings> {
  const started = now();
  const marks = new Map<string, { wall: number; cpu: number }>();
  let done = 0;
  const events: RunEvents = {
    onTrial: hooks.onTrialDone && (() => hooks.onTrialDone!((done += 1))),
    onPhase: (phase) => void marks.set(phase, { wall: now(), cpu: cpu() }),
    onStart: hooks.onStart,
    betweenPhases: hooks.betweenPhases,
  };
  const { runDir, outcome } = await runProject({ root, runId, env: {}, events });
  const finished = now();
  const cpuFinished = cpu();
  const trials = marks.get('trials')!;
  const summary = marks.get('summary')!;
  const reports = marks.get('reports')!;

  return {
    trials: outcome.ran,
    errored: outcome.errored,
    startupMs: trials.wall - started,
    trialsMs: summary.wall - trials.wall,
    summaryMs: reports.wall - summary.wall,
    reportMs: finished - reports.wall,
    throughput: outcome.ran / ((reports.wall - trials.wall) / 1000),
    throughputWithReports: outcome.ran / ((finished - trials.wall) / 1000),
    cpuMs: { trials: summary.cpu - trials.cpu, summary: reports.cpu - summary.cpu, report: cpuFinished - reports.cpu },
    runDir,
    // The size from the file system: reading a 350 MB file to measure it would be the run's peak memory.
    trialsBytes: statSync(path.join(runDir, RUN_FILES.trials)).size,
  };
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
 * `toolmark report --rescore` runs (src/run/rescore-run.ts): every recorded
 * trial is graded again against the project's tasks, aggregated into a
 * fresh summary.json, and the reports are re-rendered.
 */
export async function timedRescore(
  root: string,
  runDir: string,
  hooks: Pick<RunEvents, 'betweenPhases'> = {},
): Promise<RescoreTimings> {
  const started = now();
  const cpuStart = cpu();
  const project = await loadProjectForRun(root, runDir);
  const afterLoad = now();
  const result = await rescoreRun({ runDir, root, project, events: { betweenPhases: hooks.betweenPhases } });
  const finished = now();
  return {
    trials: result.trials,
    loadMs: afterLoad - started,
    rescoreMs: finished - afterLoad,
    cpuMs: cpu() - cpuStart,
    changed: result.changed,
  };
}
