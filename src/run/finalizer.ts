import { createAggregator, type Aggregator } from '../aggregate/index.ts';
import {
  createRunCollector,
  drawAhead,
  htmlChartSpecs,
  startChartWorker,
  writeReports,
  type ChartRenderer,
  type ChartWorker,
  warmUpTailSpecs,
  type RunCollector,
  type RunFacts,
  runShapedChartSpecs,
} from '../report/index.ts';
import {
  readManifest,
  readSummary,
  writeFileAtomic,
  writeSummary,
  type RunFileWriter,
  type TrialLinePlace,
} from '../run-folder/index.ts';
import type { Manifest, ProjectConfig, Summary, TrialRecord } from '../spec/index.ts';
import type { TopLevelSpec } from 'vega-lite';
import type { RunEvents } from './events.ts';
import { isSmallRun } from '../spec/run-size.ts';

/**
 * The end of a run (and of `toolmark merge`): `summary.json`, then the
 * reports. Both reduce the same stream of trials, so they are fed together,
 * record by record, by whoever already has the trials in hand — the runner
 * as it reads the resumed part and appends each new trial, merge as it
 * copies the shards — instead of reading `trials.jsonl` twice more at the
 * end. Records must come in file order (the reports keep the first few
 * failures of each task); the streaming reducers keep only counters and
 * bounded samples, never the trials.
 */
export interface RunFinalizer {
  /** One trial of the run, in `trials.jsonl` order, with where its line is there when the caller knows (RunCollector). */
  add(record: TrialRecord, place?: TrialLinePlace): void;
  /** Write summary.json of the trials added (atomically, or through a transaction's `write`); returns it. Once only, after the last `add`. */
  writeSummary(runDir: string, write?: RunFileWriter): Summary;
  /**
   * Write report.md, report.html and junit.xml (once, after `writeSummary`).
   * Callers update the manifest between the two steps (finished, re-scored):
   * the reports show the manifest as `toolmark report` would read it later.
   * A caller staging the files in a transaction passes the manifest and
   * summary it staged (they are not in the folder yet) and its `write`.
   */
  writeReports(
    runDir: string,
    staged?: { manifest: Manifest; summary: Summary; write: RunFileWriter },
  ): Promise<RunFacts>;
  /** A run that ends without its reports (it failed, or was abandoned): ends a chart worker started early. Idempotent. */
  dispose(): void;
}

export interface RunFinalizerOptions {
  runId: string;
  config: ProjectConfig;
  synthetic: boolean;
  /** Most trials embedded in the HTML trial browser (default: the report's). */
  sampleLimit?: number;
  /** Its `betweenPhases` is awaited once the reducers are let go, before the reports render. */
  events?: RunEvents;
  /**
   * The run's manifest as its trials start, when there is one: a small run
   * (`isSmallRun(planned)`, src/spec/run-size.ts) starts its chart worker at
   * once, and has it draw the page's charts as soon as the summary is made.
   */
  manifest?: Manifest;
  /** A chart worker started earlier (a partial re-score starts it first: src/run/rescore-run.ts); default: one started for the reports. */
  charts?: ChartWorker;
}

/*
 * A small run's chart worker (`isSmallRun`) starts with the
 * finalizer — as the trials begin — instead of when the reports render,
 * warms up on made-up charts (`earlyWarmUp`, below), and draws the page's
 * charts as soon as the summary is made (`drawAhead`). Loading Vega
 * and drawing cold were on a 10,000-trial run's critical path: its reports
 * phase waited for the worker while the main thread had written report.md
 * and junit.xml. During the trials the second core has room: the main
 * thread runs them, the second core only V8's garbage-collection helpers.
 * A larger run keeps the late start: the worker (~15 MB, more as it draws)
 * would sit on top of the trials' growing heap, and a 100,000-trial run's
 * peak memory is held to 300 MB.
 */

/**
 * What a small run's chart worker draws while the trials run: the page's
 * four kinds of chart, the costliest first, then the two costliest again
 * (metric bars, success against tokens: warm-up-specs.ts). Warmed up on
 * one made-up chart (round 8), the worker spent ~160–240 ms of its CPU on a
 * 10,000-trial run's page, more than the main thread's reports before they
 * wait for it (~70–100 ms): the worker was the reports' critical path. V8
 * optimises Vega's code once it has run a few times: the four kinds once
 * each barely helped; these six (~0.25 s more of the second core, during
 * the trials) brought the page to ~105–115 ms, as eight (each kind twice)
 * did. The warm-up ends at the chart in hand when the page is asked for,
 * and after the first chart when the worker has to wait for a core
 * (src/report/html/core-room.ts): on a crowded machine the rest of it
 * slowed the trials more than it sped up the reports.
 */
function earlyWarmUp(manifest: Manifest, prepared: TopLevelSpec[] | null): TopLevelSpec[] {
  // The first three in the run's own shape (metric bars, success against
  // tokens, pass curves): the page's charts of those shapes then reuse their
  // compilation to Vega (render-chart.ts, `CompiledCharts`), ~25–35 % of
  // their drawing. The rest of a made-up run (warm-up-specs.ts).
  return [...runShapedChartSpecs(manifest), ...(prepared ?? warmUpTailSpecs())];
}

/** The warm-up's specs made ahead (`prepareEarlyWarmUp`), taken by the next finalizer. */
let preparedWarmUp: TopLevelSpec[] | null = null;

/**
 * Make a small run's made-up warm-up specs now, for its finalizer to take
 * (the three of the run's own shape need its manifest). Made on the main
 * thread as the trials began, the six made-up specs of round 13 cost ~9–14
 * ms (~45 ms on a crowded machine: the charts' code runs for the first
 * time); a run makes these while the main thread would wait for the replay
 * cassettes to be read (src/run/cassette-wait.ts), before it knows whether
 * it is small. A large run's finalizer drops them.
 */
export function prepareEarlyWarmUp(): void {
  preparedWarmUp ??= warmUpTailSpecs();
}

/**
 * A small run's chart worker's young generation (a large run's is capped at
 * 4 MB, chart-worker.ts). With 4 MB the worker collected every few
 * milliseconds of drawing: ~20 scavenges (~85 ms of its time, on a busy
 * machine) for a 10,000-trial run's page, which the reports waited for. A
 * small run's peak memory has room for the ~12 MB more.
 */
const SMALL_RUN_YOUNG_MB = 16;

/** The streaming end of a run: feed it every trial, then write the summary and the reports. */
export function createRunFinalizer(options: RunFinalizerOptions): RunFinalizer {
  // Each reducer is let go as soon as its result is made: the aggregator's
  // reservoirs and the collector's per-trial tallies are garbage while the
  // reports render (a 100,000-trial run's peak memory is in that step).
  let aggregator: Aggregator | null = createAggregator({
    runId: options.runId,
    prices: options.config.prices,
    synthetic: options.synthetic,
  });
  let collector: RunCollector | null = createRunCollector({ sampleLimit: options.sampleLimit });
  const small = options.manifest !== undefined && isSmallRun(options.manifest.planned);
  // Taken by this finalizer whether it uses them or not (a large run's drops them).
  const prepared = preparedWarmUp;
  preparedWarmUp = null;
  let charts: ChartWorker | null =
    options.charts ??
    (small
      ? startChartWorker({ warmUp: earlyWarmUp(options.manifest!, prepared), youngGenerationMb: SMALL_RUN_YOUNG_MB })
      : null);
  // A small run's charts, being drawn since its summary was made.
  let ahead: ChartRenderer | null = null;
  const finalizer: RunFinalizer = {
    add(record, place) {
      aggregator!.add(record);
      collector!.add(record, place);
    },
    writeSummary(runDir, write = writeFileAtomic) {
      const summary = aggregator!.finish();
      aggregator = null;
      // The charts need only the summary (as read back), the task outcomes
      // and the manifest's sweep: a small run's worker starts drawing them
      // now, before summary.json is written, the manifest finished and the
      // reports collected. The summary goes through JSON as summary.json is
      // read back, not yet through its schema: zod compiles its parsers on
      // their first use (~10–30 ms), and the reports' own reading of it
      // (`asWritten`, src/run/run-project.ts) comes after the worker has its
      // specs. The schema adds nothing to an aggregator's summary but key
      // order; were it ever to, the page would draw its charts itself (drawAhead).
      if (charts && options.manifest)
        ahead = drawAhead(
          charts,
          htmlChartSpecs({
            manifest: options.manifest,
            summary: JSON.parse(JSON.stringify(summary)) as Summary,
            // Only the flipped-tasks chart reads the outcomes: a run without
            // flipped tasks (one trial per task, say) asks before its ~10,000
            // outcomes are made (~10 ms), which the reports make later.
            outcomes: collector!.anyFlipped() ? collector!.outcomes() : [],
          }),
        );
      writeSummary(runDir, summary, write);
      return summary;
    },
    async writeReports(runDir, staged) {
      // The reports see the run folder's documents as written (as `toolmark report` would read them).
      const data = collector!.finish({
        runDir,
        manifest: staged?.manifest ?? readManifest(runDir),
        summary: staged?.summary ?? readSummary(runDir),
      });
      collector = null;
      // The charts' worker (Vega, ~40 MB) starts only now unless the run is
      // small, so it never comes on top of a large run's trials: it imports
      // Vega and draws while this thread writes report.md, junit.xml and the
      // page around the charts. Started, and its isolate set up on its own
      // thread (`ready`), before the release below: a new isolate's heap
      // set-up puts V8's young-generation growth back, which the release caps
      // again (src/cli/heap-policy.ts); set up after it, the main thread's
      // young generation grew to 32 MB in the reports.
      charts ??= startChartWorker();
      await charts.ready;
      // What the trials left is garbage now; the CLI hands it back before the
      // reports render (a 100,000-trial run's peak memory was this step).
      await options.events?.betweenPhases?.(options.manifest?.planned);
      try {
        await writeReports(data, options.config.gate, staged?.write, ahead ?? charts.render);
      } finally {
        charts.stop();
        charts = null;
      }
      return data.facts;
    },
    dispose() {
      charts?.stop();
      charts = null;
    },
  };
  return finalizer;
}
