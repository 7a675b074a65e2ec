import { createAggregator } from '../aggregate/index.ts';
import { createRunCollector, writeReports } from '../report/index.ts';
import { readManifest, readSummary, writeSummary } from '../run-folder/index.ts';
import type { ProjectConfig, Summary, TrialRecord } from '../spec/index.ts';

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
  /** One trial of the run, in `trials.jsonl` order. */
  add(record: TrialRecord): void;
  /** Write summary.json of the trials added; returns it. */
  writeSummary(runDir: string): Summary;
  /** Write report.md, report.html and junit.xml (after `writeSummary`; the manifest is already written). */
  writeReports(runDir: string): Promise<void>;
  /** Both steps: summary, then reports; returns the summary. */
  finish(runDir: string): Promise<Summary>;
}

export function createRunFinalizer(options: { runId: string; config: ProjectConfig; synthetic: boolean }): RunFinalizer {
  const aggregator = createAggregator({ runId: options.runId, prices: options.config.prices, synthetic: options.synthetic });
  const collector = createRunCollector();
  const finalizer: RunFinalizer = {
    add(record) {
      aggregator.add(record);
      collector.add(record);
    },
    writeSummary(runDir) {
      const summary = aggregator.finish();
      writeSummary(runDir, summary);
      return summary;
    },
    async writeReports(runDir) {
      // The reports see the run folder's documents as written (as `toolmark report` would read them).
      await writeReports(collector.finish({ runDir, manifest: readManifest(runDir), summary: readSummary(runDir) }), options.config.gate);
    },
    async finish(runDir) {
      const summary = finalizer.writeSummary(runDir);
      await finalizer.writeReports(runDir);
      return summary;
    },
  };
  return finalizer;
}
