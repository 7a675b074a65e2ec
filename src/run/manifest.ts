import { execFile } from 'node:child_process';
import path from 'node:path';
import { withoutCredentials } from '../../providers/http/base-url.ts';
import type { SchemaCost } from '../cost/schema-cost.ts';
import { surfaceKey, type PlannedTrial } from '../solve/index.ts';
import type { Manifest, ProjectConfig, RunSelection } from '../spec/index.ts';
import { readGitHead } from './git-head.ts';
import type { RunProvider } from './providers.ts';

/**
 * `Manifest.config` of a new run: the configuration with only the presets
 * the run uses (an unused preset is none of its business), every URL
 * without credentials, and replay cassettes relative to the project root
 * (a results folder moved to another machine still names them). A preset's
 * credentials are read from the config again on `--resume`; a `--provider`
 * URL's are not stored, so a run started with one cannot be resumed with them.
 */
export function manifestConfig(config: ProjectConfig, selection: RunSelection, root: string): Manifest['config'] {
  const presets: ProjectConfig['providers'] = {};
  for (const text of selection.providers) {
    const preset = Object.hasOwn(config.providers, text) ? config.providers[text] : undefined;
    if (preset)
      presets[text] =
        preset.base_url === undefined ? preset : { ...preset, base_url: withoutCredentials(preset.base_url) };
  }
  return {
    ...config,
    providers: presets,
    selection: { ...selection, providers: selection.providers.map((text) => storedProviderText(text, root)) },
  };
}

/** A `--provider` value as the manifest stores it: no credentials, replay paths relative to `root`. */
export function storedProviderText(text: string, root: string): string {
  const safe = withoutCredentials(text);
  const replay = /^\s*replay:(.*)$/s.exec(safe);
  if (!replay) return safe;
  const paths = replay[1]!.split(',').map((part) => part.trim());
  const relative = paths.map((part) =>
    path.isAbsolute(part) ? path.relative(root, part).split(path.sep).join('/') || '.' : part,
  );
  return `replay:${relative.join(',')}`;
}

/** `Manifest.providers`: each provider with its effective base URL (live ones), never its credentials. */
export function manifestProviders(providers: readonly RunProvider[], root: string): Manifest['providers'] {
  return providers.map((entry) => ({
    id: storedProviderText(entry.spec, root),
    provider: entry.provider.id,
    model: entry.provider.model,
    synthetic: entry.synthetic,
    ...(entry.baseURL !== undefined ? { base_url: withoutCredentials(entry.baseURL) } : {}),
  }));
}

/** Surfaces (with hash and schema cost) and tasks of a plan, as the manifest lists them. */
export function describePlan(
  plan: readonly PlannedTrial[],
  costs: ReadonlyMap<string, SchemaCost>,
): Pick<Manifest, 'surfaces' | 'tasks'> {
  const surfaces = new Map<string, Manifest['surfaces'][number]>();
  // Tasks by domain, then by id (no joined key string per trial: ~10,000 of them in the 10k run's
  // pre-flight), listed in the order first planned.
  const tasks: Manifest['tasks'] = [];
  const taskIds = new Map<string, Map<string, number>>();
  let last: PlannedTrial | undefined;
  for (const planned of plan) {
    // A plan lists a task's trials one after another, mostly on one surface: those are known already.
    const sameDomain = last !== undefined && planned.domain === last.domain;
    const sameSurface = sameDomain && planned.surface === last!.surface;
    const sameTask = sameDomain && planned.task === last!.task;
    last = planned;
    const key = sameSurface ? '' : `${planned.domain.name}/${planned.surface.id}`;
    if (!sameSurface && !surfaces.has(key)) {
      const cost = costs.get(surfaceKey(planned))!;
      surfaces.set(key, {
        domain: planned.domain.name,
        id: planned.surface.id,
        hash: planned.surface.hash,
        schema_tokens: cost.tokens,
        schema_bytes: cost.bytes,
      });
    }
    if (sameTask) continue;
    let ids = taskIds.get(planned.domain.name);
    if (ids === undefined) taskIds.set(planned.domain.name, (ids = new Map()));
    const entry = {
      domain: planned.domain.name,
      id: planned.task.id,
      kind: planned.task.kind,
      split: planned.task.split,
    };
    // The last trial's task names its entry, in the place its id was first planned.
    const place = ids.get(entry.id);
    if (place === undefined) ids.set(entry.id, tasks.push(entry) - 1);
    else tasks[place] = entry;
  }
  return { surfaces: [...surfaces.values()], tasks };
}

/**
 * The git commit of the project, if it is a git checkout: read from the
 * repository's files when they are plain (src/run/git-head.ts), else asked
 * of `git` without blocking — a run starts it with its pre-flight and takes
 * the answer for the manifest, so starting `git` overlaps the pre-flight's work.
 */
export function gitCommitSoon(root: string): Promise<string | null> {
  const read = readGitHead(root);
  if (read !== undefined) return Promise.resolve(read);
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', 'HEAD'], { cwd: root }, (error, stdout) =>
      resolve(error ? null : stdout.toString().trim() || null),
    );
  });
}
