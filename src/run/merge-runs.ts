import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  RunFolderTransaction,
  asWritten,
  checkRunId,
  createRunId,
  liveLockOwner,
  locateRun,
  lockRunFolder,
  readManifest,
  readTrials,
  runFile,
  TrialAppender,
  writeManifest,
} from '../run-folder/index.ts';
import { trialIdentity } from '../solve/index.ts';
import { ConfigError, Manifest, Summary } from '../spec/index.ts';
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
  /** Merge shards that did not finish (killed, interrupted): the merged run is then marked partial (`manifest.partial`). */
  allowPartial?: boolean;
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
  /** Shards that had not finished (merged with `allowPartial`); empty when the merge is whole. */
  partial: NonNullable<Manifest['partial']>;
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
    refuseBusyOrUnfinished(dir, manifest, options.allowPartial ?? false);
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
  const alreadyThere = () =>
    new ConfigError({ file: runDir, message: 'a run with this id already exists', expected: 'a new --run-id' });
  if (existsSync(runDir)) throw alreadyThere();
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
  // Created exclusively and locked: two merges into one --run-id cannot both write it.
  mkdirSync(resultsDir, { recursive: true });
  try {
    mkdirSync(runDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyThere();
    throw error;
  }
  const lock = lockRunFolder(runDir, 'merge');
  try {
    return await copyAndFinish({ options, runDir, runId, merged, dirs, manifests, config });
  } finally {
    lock.release();
  }
}

/** The merged run's trials, then its summary, finished manifest and reports (installed together). */
async function copyAndFinish(input: {
  options: MergeRunsOptions;
  runDir: string;
  runId: string;
  merged: Manifest;
  dirs: string[];
  manifests: Manifest[];
  config: ReturnType<typeof configOfManifest>;
}): Promise<MergeResult> {
  const { options, runDir, runId, merged, dirs, manifests, config } = input;
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
  const partial: MergeResult['partial'] = [];
  try {
    for (const [index, dir] of dirs.entries()) {
      const shard = manifests[index]!;
      let trials = 0;
      for await (const record of readTrials(dir, { allowMissing: true })) {
        trials += 1;
        const identity = trialIdentity(record);
        if (seen.has(identity)) {
          duplicates += 1;
          continue;
        }
        seen.add(identity);
        appender.append(record);
        finalizer.add(record);
      }
      if (shard.finished_at === null || trials < shard.planned)
        partial.push({ run_id: shard.run_id, trials, planned: shard.planned });
    }
  } finally {
    appender.close();
  }
  // Summary, finished manifest, then the reports (which show that manifest, as `toolmark report` would), installed together.
  const finish = new RunFolderTransaction(runDir, 'end of a merge (summary, manifest, reports)');
  try {
    const summary = finalizer.writeSummary(runDir, finish.write);
    await options.events?.onPhase?.('reports');
    const finished: Manifest = {
      ...merged,
      ...(partial.length > 0 ? { partial } : {}),
      finished_at:
        manifests
          .map((manifest) => manifest.finished_at ?? '')
          .sort()
          .at(-1) || new Date().toISOString(),
    };
    writeManifest(runDir, finished, finish.write);
    await finalizer.writeReports(runDir, {
      manifest: asWritten(Manifest, finished),
      summary: asWritten(Summary, summary),
      write: finish.write,
    });
    finish.commit();
    return { runDir, runId, manifest: finished, summary, merged: dirs.length, trials: seen.size, duplicates, partial };
  } catch (error) {
    finish.abandon();
    throw error;
  }
}

/**
 * A shard another process is writing is refused; so is one that did not
 * finish (killed, interrupted, stopped early: its manifest has no
 * `finished_at`) unless `allowPartial`, since the merge would otherwise
 * pass for a whole run. A merged run is no shard: merge its shards instead.
 */
function refuseBusyOrUnfinished(dir: string, manifest: Manifest, allowPartial: boolean): void {
  const file = runFile(dir, 'manifest');
  const owner = liveLockOwner(dir);
  if (owner !== null)
    throw new ConfigError({
      file,
      message: `run ${manifest.run_id} is being written by \`toolmark ${owner.command}\` (pid ${owner.pid})`,
      expected: 'finished shards: wait for it to end',
    });
  if (manifest.finished_at === null && !allowPartial)
    throw new ConfigError({
      file,
      field: 'finished_at',
      message: `run ${manifest.run_id} did not finish, so the merge would be partial`,
      expected: `finished shards: \`toolmark run --resume ${dir}\` first, or --allow-partial to merge it anyway (the merged run is then marked partial)`,
    });
}
