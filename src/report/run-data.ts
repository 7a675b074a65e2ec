import type { Manifest, Summary } from '../spec/index.ts';
import { assertRunFolder, isSynthetic, readManifest, readSummary, streamTrials } from './run-folder.ts';
import { createTaskOutcomes, type TaskOutcome } from './task-outcomes.ts';
import { createTrialSample, DEFAULT_SAMPLE_LIMIT, type BrowserTrial } from './trial-sample.ts';

/** Everything the three renderers need, gathered in ONE streaming pass over trials.jsonl. */
export interface RunData {
  runDir: string;
  manifest: Manifest;
  summary: Summary;
  synthetic: boolean;
  /** One per task × surface × provider/model. */
  outcomes: TaskOutcome[];
  /** Bounded sample for the HTML trial browser. */
  sample: { trials: BrowserTrial[]; total: number; limit: number };
  totals: { trials: number; completed: number; passed: number; errored: number };
}

/** Reads a run folder: manifest and summary whole, trials streamed and reduced. */
export async function collectRun(runDir: string, options: { sampleLimit?: number } = {}): Promise<RunData> {
  await assertRunFolder(runDir);
  const manifest = await readManifest(runDir);
  const summary = await readSummary(runDir);
  const outcomes = createTaskOutcomes();
  const sample = createTrialSample(options.sampleLimit ?? DEFAULT_SAMPLE_LIMIT);
  const totals = { trials: 0, completed: 0, passed: 0, errored: 0 };
  for await (const record of streamTrials(runDir)) {
    outcomes.add(record);
    sample.add(record);
    totals.trials += 1;
    if (record.status === 'errored') totals.errored += 1;
    else {
      totals.completed += 1;
      if (record.success === true) totals.passed += 1;
    }
  }
  return { runDir, manifest, summary, synthetic: isSynthetic(manifest, summary), outcomes: outcomes.finish(), sample: sample.finish(), totals };
}
