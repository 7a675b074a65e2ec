import path from 'node:path';
import {
  finishSurface,
  loadProject,
  perturbSurface,
  projectDistractorSources,
  readDistractorSources,
  type Project,
} from '../load/index.ts';
import { discoverDomainNames } from '../load/domains.ts';
import { sweepRows, type SweepRow } from '../report/index.ts';
import { schemaCost } from '../cost/schema-cost.ts';
import { initialSchemaPayload } from '../solve/tool-search.ts';
import {
  ConfigError,
  DEFAULT_SEARCH_TOP_K,
  closest,
  type ConfigIssue,
  type DistractorSource,
  type ResolvedSurface,
  type RunSelection,
  type SweepPlan,
  type SweepRung,
} from '../spec/index.ts';
import type { RunControl } from './events.ts';
import { runProject, type RunResult } from './run-project.ts';

/**
 * The loading modes a sweep can run, each setting the rung's loading option
 * before the hash is taken (so an eager and a deferred rung of one size are
 * two surfaces `compare` can pair). `eager`: the whole payload in every
 * request. `deferred`: the base surface's `always_loaded` (and search
 * settings) when the base is deferred, else nothing always loaded; the
 * distractors are deferred too, so a search can find them (src/solve/tool-search.ts).
 */
export const SWEEP_LOADING = {
  eager: (surface: ResolvedSurface): ResolvedSurface => {
    const { loading: _loading, ...eager } = surface;
    return eager;
  },
  deferred: (surface: ResolvedSurface, base: ResolvedSurface): ResolvedSurface => ({
    ...surface,
    loading: base.loading ?? { mode: 'deferred', always_loaded: [], top_k: DEFAULT_SEARCH_TOP_K, anthropic: 'bm25' },
  }),
} as const;
export type SweepLoading = keyof typeof SWEEP_LOADING;

/** `sweepProject`: a task set over a ladder of catalog sizes (× loading modes). */
export interface SweepOptions extends RunControl {
  root: string;
  /** The base surface (its id; `domain` when ids repeat across domains). */
  surface: string;
  domain?: string;
  /** Tool counts of the rungs (each ≥ the base surface's tool count), ascending after dedupe. */
  sizes: readonly number[];
  /** Distractor sources (`domain:<name>`, `file:<path>`, `generated`); default `generated`. */
  from?: readonly DistractorSource[];
  /** Seed of the distractor draw: every rung draws from one permutation, so a larger rung keeps a smaller one's tools. */
  seed?: number;
  /** Shuffle every rung with this seed (default: distractors follow the base tools). */
  shuffle?: number | null;
  loading?: readonly SweepLoading[];
  selection?: Partial<Omit<RunSelection, 'surfaces' | 'domains'>>;
  out?: string;
  runId?: string;
  concurrency?: number;
  /** Write every model turn to this cassette (a live provider's sweep, replayable offline with `replay:FILE`). */
  record?: string;
  /** Replay cassettes recorded before the surface or tasks changed (their request hashes no longer match). */
  allowStale?: boolean;
  /** Environment the providers read their keys (and base URLs) from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface SweepResult extends RunResult {
  plan: SweepPlan;
  /** One per rung × provider/model: what report.md's sweep table shows. */
  rows: SweepRow[];
}

const fail = (field: string, message: string, expected?: string, suggestion?: string): never => {
  throw new ConfigError({ file: '(sweep)', field, message, expected, suggestion });
};

/**
 * Build the ladder's surfaces from the base surface (the same `perturb:
 * distractors` derivation a surface file uses, one `total` per rung), run
 * the task set on them as one run (`runProject`: one folder, one summary),
 * and read the sweep table back from its summary. Bad input is a
 * ConfigError before anything runs.
 */
export async function sweepProject(options: SweepOptions): Promise<SweepResult> {
  const root = path.resolve(options.root);
  const project = await loadProject(root, options.domain ? { domains: [options.domain] } : {});
  const { plan, project: swept } = await buildSweep(project, options);
  const result = await runProject({
    root,
    project: swept,
    sweep: plan,
    selection: {
      ...options.selection,
      ...(options.allowStale ? { allow_stale: true } : {}),
      surfaces: plan.rungs.map((rung) => rung.surface),
      domains: [plan.domain],
    },
    out: options.out,
    runId: options.runId,
    concurrency: options.concurrency,
    record: options.record,
    env: options.env,
    events: options.events,
    stop: options.stop,
    signal: options.signal,
  });
  return { ...result, plan, rows: sweepRows(result.manifest, result.summary) };
}

/** The sweep's plan and the project whose domain holds exactly the rung surfaces. */
export async function buildSweep(
  project: Project,
  options: Pick<SweepOptions, 'surface' | 'domain' | 'sizes' | 'from' | 'seed' | 'shuffle' | 'loading'>,
): Promise<{ plan: SweepPlan; project: Project }> {
  const candidates = project.domains.filter((domain) =>
    domain.surfaces.some((surface) => surface.id === options.surface),
  );
  if (candidates.length === 0) {
    const ids = project.domains.flatMap((domain) => domain.surfaces.map((surface) => surface.id));
    fail(
      '--surface',
      `unknown surface "${options.surface}"`,
      `one of ${ids.join(', ')}`,
      closest(options.surface, ids),
    );
  }
  if (candidates.length > 1)
    fail(
      '--surface',
      `surface "${options.surface}" exists in ${candidates.map((domain) => domain.name).join(' and ')}`,
      '--domain NAME',
    );
  const domain = candidates[0]!;
  const base = domain.surfaces.find((surface) => surface.id === options.surface)!;
  if (base.distractors?.length)
    fail('--surface', `surface "${base.id}" already has distractors`, 'a surface without perturb.distractors');
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  if (sizes.length === 0) fail('--sizes', 'no sizes given', 'tool counts, e.g. --sizes 5,10,20,40');
  for (const size of sizes)
    if (!Number.isInteger(size) || size < base.payload.length)
      fail(
        '--sizes',
        `size ${size} is below the ${base.payload.length} tools of ${base.id}`,
        `integers ≥ ${base.payload.length}`,
      );
  const from = options.from?.length ? [...options.from] : (['generated'] as DistractorSource[]);
  for (const source of from)
    if (!/^(domain:.+|file:.+|generated)$/.test(source))
      fail('--from', `bad distractor source "${source}"`, 'domain:<name>, file:<path> or generated');
  const seed = options.seed ?? 0;
  const shuffle = options.shuffle ?? null;
  const loading = options.loading?.length ? [...new Set(options.loading)] : (['eager'] as SweepLoading[]);
  for (const mode of loading)
    if (!Object.hasOwn(SWEEP_LOADING, mode))
      fail('--loading', `unknown loading mode "${mode}"`, `one of ${Object.keys(SWEEP_LOADING).join(', ')}`);

  const issues: ConfigIssue[] = [];
  const sources = projectDistractorSources(project.root, await discoverDomainNames(project.root));
  const external = await readDistractorSources({ distractors: { total: 1, from, seed } }, sources, (at, details) =>
    issues.push({ file: '--from', field: at.join('.'), ...details }),
  );
  if (!external) throw new ConfigError(issues);

  const surfaces: ResolvedSurface[] = [];
  const rungs: SweepRung[] = [];
  for (const mode of loading) {
    for (const size of sizes) {
      const id = `${base.id}.n${size}${mode === 'eager' ? '' : `.${mode}`}`;
      const derived = perturbSurface(
        { ...base, id, extends: base.id, file: `(sweep of ${base.file})` },
        { distractors: { total: size, from, seed }, ...(shuffle === null ? {} : { shuffle: { seed: shuffle } }) },
        external,
      );
      if ('message' in derived) fail('--sizes', derived.message, derived.expected);
      const resolved = derived as ResolvedSurface;
      const visibility = base.visibility ? 'by_permission' : 'all';
      const surface = finishSurface(SWEEP_LOADING[mode](resolved, base), visibility, domain.domain);
      surfaces.push(surface);
      rungs.push({
        surface: id,
        tools: size,
        distractors: size - base.payload.length,
        loading: mode,
        ...(surface.loading
          ? { initial_schema_tokens: schemaCost(initialSchemaPayload(surface)).tokens, top_k: surface.loading.top_k }
          : {}),
      });
    }
  }
  const plan: SweepPlan = {
    v: 1,
    domain: domain.name,
    base: { surface: base.id, hash: base.hash, tools: base.payload.length },
    from,
    seed,
    shuffle,
    rungs,
  };
  const swept: Project = {
    ...project,
    domains: project.domains.filter((other) => other === domain).map((other) => ({ ...other, surfaces })),
  };
  return { plan, project: swept };
}
