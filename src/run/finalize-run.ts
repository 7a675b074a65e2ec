import { readManifest, readTrials } from '../run-folder/index.ts';
import { ProjectConfig, type Manifest, type Summary } from '../spec/index.ts';
import type { RunEvents } from './events.ts';
import { createRunFinalizer } from './finalizer.ts';

/** `finalizeRun`: which run folder, graded how. */
export interface FinalizeRunOptions {
  /** The run folder (manifest.json and trials.jsonl). */
  runDir: string;
  /** Prices and gate thresholds; default the configuration the manifest stored. */
  config?: ProjectConfig;
  /** Most trials embedded in the HTML trial browser. */
  sampleLimit?: number;
  /** `onPhase('reports')` once summary.json is written; `betweenPhases` before the reports render. */
  events?: RunEvents;
}

/** What finalizing wrote. */
export interface FinalizeResult {
  summary: Summary;
  /** Trials read from trials.jsonl (a torn last line is not one). */
  trials: number;
}

/** The project configuration a run stored in its manifest (without what the run itself added); defaults when it no longer parses. */
export function configOfManifest(manifest: Manifest): ProjectConfig {
  const { selection: _selection, merged_from: _mergedFrom, ...fields } = manifest.config;
  const parsed = ProjectConfig.safeParse(fields);
  return parsed.success ? parsed.data : ProjectConfig.parse({});
}

/**
 * Make `summary.json` and the reports of a run folder from its
 * `trials.jsonl` as it is — a run killed before its summary, or one whose
 * trials were written by other means. The verdicts are the recorded ones
 * (`rescoreRun` grades again); the manifest is left as it is, so an
 * unfinished run still says so. Reads the file once, feeding the summary
 * and the reports together.
 */
export async function finalizeRun(options: FinalizeRunOptions): Promise<FinalizeResult> {
  const manifest = readManifest(options.runDir);
  const finalizer = createRunFinalizer({
    runId: manifest.run_id,
    config: options.config ?? configOfManifest(manifest),
    synthetic: manifest.providers.some((provider) => provider.synthetic),
    sampleLimit: options.sampleLimit,
    events: options.events,
  });
  let trials = 0;
  for await (const record of readTrials(options.runDir, { allowMissing: true })) {
    finalizer.add(record);
    trials += 1;
  }
  const summary = finalizer.writeSummary(options.runDir);
  await options.events?.onPhase?.('reports');
  await finalizer.writeReports(options.runDir);
  return { summary, trials };
}
