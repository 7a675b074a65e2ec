import { execFile } from 'node:child_process';
import path from 'node:path';
import { withoutCredentials } from '../../providers/http/base-url.ts';
import type { SchemaCost } from '../cost/schema-cost.ts';
import { surfaceKey, type PlannedTrial } from '../solve/index.ts';
import type { Manifest, ProjectConfig, RunSelection } from '../spec/index.ts';
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
  const tasks = new Map<string, Manifest['tasks'][number]>();
  for (const planned of plan) {
    const key = `${planned.domain.name}/${planned.surface.id}`;
    if (!surfaces.has(key)) {
      const cost = costs.get(surfaceKey(planned))!;
      surfaces.set(key, {
        domain: planned.domain.name,
        id: planned.surface.id,
        hash: planned.surface.hash,
        schema_tokens: cost.tokens,
        schema_bytes: cost.bytes,
      });
    }
    tasks.set(`${planned.domain.name}/${planned.task.id}`, {
      domain: planned.domain.name,
      id: planned.task.id,
      kind: planned.task.kind,
      split: planned.task.split,
    });
  }
  return { surfaces: [...surfaces.values()], tasks: [...tasks.values()] };
}

/**
 * The git commit of the project, if it is a git checkout. Asked without
 * blocking: a run starts it with its pre-flight and takes the answer for
 * the manifest, so the ~70 ms of starting `git` overlap the pre-flight's
 * work instead of stopping it.
 */
export function gitCommitSoon(root: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', 'HEAD'], { cwd: root }, (error, stdout) =>
      resolve(error ? null : stdout.toString().trim() || null),
    );
  });
}
