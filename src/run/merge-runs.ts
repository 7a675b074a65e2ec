import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  checkRunId,
  createRunId,
  locateRun,
  readManifest,
  readTrials,
  runFile,
  TrialAppender,
  writeManifest,
} from '../run-folder/index.ts';
import { trialIdentity } from '../solve/index.ts';
import { ConfigError, type Manifest, type Summary } from '../spec/index.ts';
import type { RunEvents } from './events.ts';
import { configOfManifest } from './finalize-run.ts';
import { createRunFinalizer } from './finalizer.ts';

/** `mergeRuns`: shard runs of one job into one run. */
export interface MergeRunsOptions {
  /** The runs to merge: folder paths, or run ids under `out`. The first listed wins a duplicate trial. */
  runs: readonly string[];
  /** Results folder of the merged run (and where run ids are looked up). */
  out: string;
  /** Id of the merged run; default a timestamp plus a random suffix. */
  runId?: string;
  /** `onPhase('reports')` once summary.json is written; `betweenPhases` before the reports render. */
  events?: RunEvents;
}

/** What a merge wrote. */
export interface MergeResult {
  runDir: string;
  runId: string;
  manifest: Manifest;
  summary: Summary;
  /** Runs merged (a run named twice counts once). */
  merged: number;
  /** Trials in the merged run. */
  trials: number;
  /** Trials dropped because an earlier run listed already had the same identity. */
  duplicates: number;
}

/** Union of list entries by a key, first seen wins, order kept. */
function unionBy<T>(lists: T[][], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const list of lists) for (const item of list) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

/**
 * Merge the shards of a CI matrix (`toolmark run --shard i/n`) into one new
 * run: trials deduplicated by identity, manifests united, summary and
 * reports made while the trials are copied. Refused (ConfigError, nothing
 * written) when two runs evaluated different versions of a surface.
 */
export async function mergeRuns(options: MergeRunsOptions): Promise<MergeResult> {
  const resultsDir = path.resolve(options.out);
  // A run named twice counts once (its trials would be deduplicated anyway, its planned count not).
  const dirs: string[] = [];
  const manifests: Manifest[] = [];
  for (const run of options.runs) {
    const dir = locateRun(run, resultsDir, 'RUN');
    const manifest = readManifest(dir);
    if (manifests.some((other) => other.run_id === manifest.run_id)) continue;
    dirs.push(dir);
    manifests.push(manifest);
  }
  // Shards of one job must have evaluated the same surface versions.
  const hashes = new Map<string, { hash: string; dir: string }>();
  manifests.forEach((manifest, index) => {
    for (const surface of manifest.surfaces) {
      const key = `${surface.domain}/${surface.id}`;
      const earlier = hashes.get(key);
      if (earlier && earlier.hash !== surface.hash) {
        throw new ConfigError({
          file: runFile(dirs[index]!, 'manifest'),
          field: `surfaces.${key}`,
          message: `surface ${key} has a different hash than in ${earlier.dir}; these runs evaluated different surface versions and cannot be merged`,
        });
      }
      hashes.set(key, { hash: surface.hash, dir: dirs[index]! });
    }
  });

  const runId = options.runId === undefined ? createRunId() : checkRunId(options.runId);
  const runDir = path.join(resultsDir, runId);
  if (existsSync(runDir))
    throw new ConfigError({ file: runDir, message: 'a run with this id already exists', expected: 'a new --run-id' });
  const first = manifests[0]!;
  const config = configOfManifest(first);
  const merged: Manifest = {
    v: 1,
    run_id: runId,
    started_at: manifests.map((manifest) => manifest.started_at).sort()[0]!,
    finished_at: null,
    git_commit: first.git_commit,
    toolmark_version: first.toolmark_version,
    node_version: first.node_version,
    config: { ...first.config, merged_from: manifests.map((manifest) => manifest.run_id) },
    providers: unionBy(
      manifests.map((manifest) => manifest.providers),
      (provider) => `${provider.id}\n${provider.provider}\n${provider.model}`,
    ),
    surfaces: unionBy(
      manifests.map((manifest) => manifest.surfaces),
      (surface) => `${surface.domain}/${surface.id}`,
    ),
    tasks: unionBy(
      manifests.map((manifest) => manifest.tasks),
      (task) => `${task.domain}/${task.id}`,
    ),
    trials: Math.max(...manifests.map((manifest) => manifest.trials)),
    shard: null,
    planned: manifests.reduce((sum, manifest) => sum + manifest.planned, 0),
  };
  mkdirSync(runDir, { recursive: true });
  writeManifest(runDir, merged);

  // Dedupe by trial identity: the first run listed wins. Summary and reports are fed as the trials are copied.
  const finalizer = createRunFinalizer({
    runId,
    config,
    synthetic: merged.providers.some((provider) => provider.synthetic),
    events: options.events,
  });
  const seen = new Set<string>();
  const appender = new TrialAppender(runDir);
  let duplicates = 0;
  try {
    for (const dir of dirs) {
      for await (const record of readTrials(dir, { allowMissing: true })) {
        const identity = trialIdentity(record);
        if (seen.has(identity)) {
          duplicates += 1;
          continue;
        }
        seen.add(identity);
        appender.append(record);
        finalizer.add(record);
      }
    }
  } finally {
    appender.close();
  }
  // Summary, finished manifest, then the reports (which show that manifest, as `toolmark report` would).
  const summary = finalizer.writeSummary(runDir);
  await options.events?.onPhase?.('reports');
  const finished: Manifest = {
    ...merged,
    finished_at:
      manifests
        .map((manifest) => manifest.finished_at ?? '')
        .sort()
        .at(-1) || new Date().toISOString(),
  };
  writeManifest(runDir, finished);
  await finalizer.writeReports(runDir);
  return { runDir, runId, manifest: finished, summary, merged: dirs.length, trials: seen.size, duplicates };
}
