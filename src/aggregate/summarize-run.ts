import { readTrials } from '../run-folder/index.ts';
import type { Price, Summary } from '../spec/index.ts';
import { createAggregator } from './aggregator.ts';

/** Aggregate a run's trials afresh from `trials.jsonl` (works for a killed run without summary.json). */
export async function summarizeRun(runDir: string, options: { runId: string; prices: Record<string, Price>; synthetic?: boolean }): Promise<Summary> {
  const aggregator = createAggregator(options);
  for await (const record of readTrials(runDir)) aggregator.add(record);
  return aggregator.finish();
}
