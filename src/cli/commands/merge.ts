import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../spec/errors.ts';
import type { Manifest, ProjectConfig as ProjectConfigType } from '../../spec/index.ts';

interface MergeFlags {
  out?: string;
  runId?: string;
}

/** Union of list entries by a key, first seen wins, order kept. */
function unionBy<T>(lists: T[][], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const list of lists) for (const item of list) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

async function mergeAction(runs: string[], flags: MergeFlags): Promise<void> {
  (await import('../heap-policy.ts')).limitHeapGrowth();
  const { existsSync, mkdirSync } = await import('node:fs');
  const { ProjectConfig } = await import('../../spec/index.ts');
  const { trialIdentity } = await import('../../solve/index.ts');
  const runFolder = await import('../../run-folder/index.ts');
  const { createRunFinalizer } = await import('../finalize-run.ts');
  const { displayPath } = await import('./run.ts');
  const { formatSummaryTable } = await import('../summary-table.ts');

  // A run named twice counts once (its trials would be deduplicated anyway, its planned count not).
  const dirs: string[] = [];
  const manifests: Manifest[] = [];
  for (const run of runs) {
    const dir = path.resolve(run);
    const manifest = runFolder.readManifest(dir);
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
        throw new ConfigError({ file: path.join(dirs[index]!, 'manifest.json'), field: `surfaces.${key}`, message: `surface ${key} has a different hash than in ${earlier.dir}; these runs evaluated different surface versions and cannot be merged` });
      }
      hashes.set(key, { hash: surface.hash, dir: dirs[index]! });
    }
  });

  const runId = flags.runId === undefined ? runFolder.createRunId() : runFolder.checkRunId(flags.runId);
  const runDir = path.join(path.resolve(flags.out ?? 'results'), runId);
  if (existsSync(runDir)) throw new ConfigError({ file: runDir, message: 'a run with this id already exists', expected: 'a new --run-id' });
  const first = manifests[0]!;
  const { selection: _selection, ...configFields } = first.config as Record<string, unknown>;
  const parsedConfig = ProjectConfig.safeParse(configFields);
  const config: ProjectConfigType = parsedConfig.success ? parsedConfig.data : ProjectConfig.parse({});
  const merged: Manifest = {
    v: 1,
    run_id: runId,
    started_at: manifests.map((manifest) => manifest.started_at).sort()[0]!,
    finished_at: null,
    git_commit: first.git_commit,
    toolmark_version: first.toolmark_version,
    node_version: first.node_version,
    config: { ...first.config, merged_from: manifests.map((manifest) => manifest.run_id) },
    providers: unionBy(manifests.map((manifest) => manifest.providers), (provider) => `${provider.id}\n${provider.provider}\n${provider.model}`),
    surfaces: unionBy(manifests.map((manifest) => manifest.surfaces), (surface) => `${surface.domain}/${surface.id}`),
    tasks: unionBy(manifests.map((manifest) => manifest.tasks), (task) => `${task.domain}/${task.id}`),
    trials: Math.max(...manifests.map((manifest) => manifest.trials)),
    shard: null,
    planned: manifests.reduce((sum, manifest) => sum + manifest.planned, 0),
  };
  mkdirSync(runDir, { recursive: true });
  runFolder.writeManifest(runDir, merged);

  // Dedupe by trial identity: the first run listed wins. Summary and reports are fed as the trials are copied.
  const finalizer = createRunFinalizer({ runId, config, synthetic: merged.providers.some((provider) => provider.synthetic) });
  const seen = new Set<string>();
  const appender = new runFolder.TrialAppender(runDir);
  let duplicates = 0;
  try {
    for (const dir of dirs) {
      for await (const record of runFolder.readTrials(dir, { allowMissing: true })) {
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
  runFolder.writeManifest(runDir, { ...merged, finished_at: manifests.map((manifest) => manifest.finished_at ?? '').sort().at(-1) || new Date().toISOString() });
  await finalizer.writeReports(runDir);
  process.stdout.write(`${formatSummaryTable(summary)}\n\n`);
  process.stdout.write(`merged ${dirs.length} runs: ${seen.size} trials (${duplicates} duplicates dropped) → ${displayPath(runDir)}/\n`);
}

/** `toolmark merge RUN… --out DIR`: shards of a CI matrix into one run. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('merge')
    .description('Merge shard runs (toolmark run --shard i/n) into one run: trials deduplicated by identity, summary and reports re-made')
    .argument('<runs...>', 'run folders to merge')
    .option('--out <dir>', 'results folder for the merged run', 'results')
    .option('--run-id <id>', 'id of the merged run (default: timestamp + random suffix)')
    .action(async (runs: string[], flags: MergeFlags) => mergeAction(runs, flags));
}
