import {
  assertRunFolder,
  readManifest,
  readSummary,
  readTrialLinesAt,
  readTrials,
  type TrialLinePlace,
} from '../run-folder/index.ts';
import type { Manifest, Summary, TrialRecord } from '../spec/index.ts';
import { createRunFactsCollector, type RunFacts } from './run-facts.ts';
import { createTaskOutcomes, type TaskOutcome } from './task-outcomes.ts';
import { createTrialSample, DEFAULT_SAMPLE_LIMIT, type SampleTrial } from './trial-sample.ts';

/** Everything the three renderers need, gathered in ONE streaming pass over trials.jsonl. */
export interface RunData {
  runDir: string;
  manifest: Manifest;
  summary: Summary;
  synthetic: boolean;
  /** One per task × surface × provider/model. */
  outcomes: TaskOutcome[];
  /** Bounded sample for the HTML trial browser, each trial with the JSON text the page embeds. */
  sample: { trials: SampleTrial[]; total: number; limit: number };
  totals: { trials: number; completed: number; passed: number; errored: number };
  /** Finish reasons, turns with no call, errors, usage, completeness (run-facts.ts). */
  facts: RunFacts;
}

/** Is this run's evidence synthetic (shipped cassettes), not a real model's? */
export function isSynthetic(manifest: Manifest, summary: Summary): boolean {
  return summary.synthetic || manifest.providers.some((provider) => provider.synthetic);
}

/** What the reports keep of a stream of trials: per-task counts, a bounded sample, totals. */
export interface RunCollector {
  /**
   * One trial, in file order. `place`, when given, is where its line is in the
   * run's trials.jsonl (`TrialAppender.append`): the trial browser's sample may
   * keep that place, not the record, for a trial it may show later, and read
   * the line back in `finish` (src/report/trial-sample.ts).
   */
  add(record: TrialRecord, place?: TrialLinePlace): void;
  /** The task outcomes of the trials added, once they are all in (before `finish`, which returns the same). */
  outcomes(): TaskOutcome[];
  /** Whether any of those outcomes is flipped (`isFlipped`), without making them. */
  anyFlipped(): boolean;
  finish(run: { runDir: string; manifest: Manifest; summary: Summary }): RunData;
}

/**
 * A streaming reducer for the reports. It is fed the trials in file order
 * by whoever is already reading them — `collectRun` below, or the runner
 * and `toolmark merge` while they aggregate the summary — so a run's trials
 * are read once for summary and reports together.
 */
export function createRunCollector(options: { sampleLimit?: number } = {}): RunCollector {
  const outcomes = createTaskOutcomes();
  const sample = createTrialSample(options.sampleLimit ?? DEFAULT_SAMPLE_LIMIT);
  const totals = { trials: 0, completed: 0, passed: 0, errored: 0 };
  const facts = createRunFactsCollector();
  let finished: TaskOutcome[] | null = null;
  const taskOutcomes = () => (finished ??= outcomes.finish());
  return {
    add(record, place) {
      outcomes.add(record);
      sample.add(record, place);
      facts.add(record);
      totals.trials += 1;
      if (record.status === 'errored') totals.errored += 1;
      else {
        totals.completed += 1;
        if (record.success === true) totals.passed += 1;
      }
    },
    outcomes: taskOutcomes,
    anyFlipped: () => outcomes.anyFlipped(),
    finish({ runDir, manifest, summary }) {
      return {
        runDir,
        manifest,
        summary,
        synthetic: isSynthetic(manifest, summary),
        outcomes: taskOutcomes(),
        sample: sample.finish((places) => readTrialLinesAt(runDir, places)),
        totals,
        facts: facts.finish(manifest, summary),
      };
    },
  };
}

/** Reads a run folder: manifest and summary whole, trials streamed and reduced. */
export async function collectRun(runDir: string, options: { sampleLimit?: number } = {}): Promise<RunData> {
  assertRunFolder(runDir);
  const manifest = readManifest(runDir);
  const summary = readSummary(runDir);
  const collector = createRunCollector(options);
  for await (const record of readTrials(runDir)) collector.add(record);
  return collector.finish({ runDir, manifest, summary });
}
