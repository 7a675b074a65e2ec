import { closest } from '../spec/suggest.ts';
import { ConfigError, trialIdentity } from '../spec/index.ts';
import type { Provider, ResolvedSurface, Task } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';

/** What the runner needs of a loaded domain (structurally the loader's LoadedDomain). */
export interface RunDomain {
  name: string;
  domain: Domain;
  surfaces: ResolvedSurface[];
  tasks: Task[];
}

/** Which trials a run holds. */
export interface RunSelection {
  /** Surface ids; empty or absent = every surface. */
  surfaces?: readonly string[];
  split: 'train' | 'heldout' | 'all';
  trials: number;
  /** Glob over task ids (`*` and `?`). */
  task?: string | null;
  /** `i/n`: keep every n-th planned trial starting at the i-th (1-based). */
  shard?: string | null;
}

/** One trial to run, with its stable identity. */
export interface PlannedTrial {
  readonly identity: string;
  provider: Provider;
  domain: RunDomain;
  surface: ResolvedSurface;
  task: Task;
  trial: number;
}

// The identity is the spec's (run-folder readers check it too); re-exported for solve's callers.
export { trialIdentity, type TrialIdentityFields } from '../spec/index.ts';

/** Parse `i/n` (1 ≤ i ≤ n). */
export function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || count < 1 || index < 1 || index > count) {
    throw new ConfigError({
      file: '--shard',
      field: text,
      message: 'not a shard',
      expected: 'i/n with 1 ≤ i ≤ n, e.g. 2/4',
    });
  }
  return { index, count };
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
}

/**
 * A planned trial. A 100,000-trial plan is held for the whole run, so each
 * entry is five references and its identity string is made only when asked
 * for (a resumed run compares them; a fresh run never needs them).
 */
class Planned implements PlannedTrial {
  constructor(
    readonly provider: Provider,
    readonly domain: RunDomain,
    readonly surface: ResolvedSurface,
    readonly task: Task,
    readonly trial: number,
  ) {}

  get identity(): string {
    return trialIdentity({
      provider: this.provider.id,
      model: this.provider.model,
      domain: this.domain.name,
      surface: this.surface.id,
      task: this.task.id,
      trial: this.trial,
    });
  }
}

/**
 * Every trial of providers × domains × surfaces × tasks × trials, in a fixed
 * order, filtered by the selection. Unknown surfaces and an empty selection
 * are ConfigErrors (nothing has run yet).
 */
export function planTrials(
  domains: readonly RunDomain[],
  providers: readonly Provider[],
  selection: RunSelection,
): PlannedTrial[] {
  const allSurfaces = domains.flatMap((domain) => domain.surfaces.map((surface) => surface.id));
  for (const wanted of selection.surfaces ?? []) {
    if (!allSurfaces.includes(wanted)) {
      throw new ConfigError({
        file: '--surface',
        field: wanted,
        message: `unknown surface "${wanted}"`,
        expected: `one of ${allSurfaces.join(', ') || '(no surfaces loaded)'}`,
        suggestion: allSurfaces.length ? closest(wanted, allSurfaces) : undefined,
      });
    }
  }
  const taskPattern = selection.task ? globToRegExp(selection.task) : null;
  const plan: PlannedTrial[] = [];
  for (const provider of providers) {
    for (const domain of domains) {
      const surfaces = domain.surfaces.filter(
        (surface) => !selection.surfaces?.length || selection.surfaces.includes(surface.id),
      );
      const tasks = domain.tasks.filter(
        (task) =>
          (selection.split === 'all' || task.split === selection.split) && (!taskPattern || taskPattern.test(task.id)),
      );
      for (const surface of surfaces) {
        for (const task of tasks) {
          for (let trial = 0; trial < selection.trials; trial += 1) {
            plan.push(new Planned(provider, domain, surface, task, trial));
          }
        }
      }
    }
  }
  if (plan.length === 0) {
    throw new ConfigError({
      file: '--task',
      field: selection.task ?? '(all)',
      message: `no trials selected (split ${selection.split}${selection.task ? `, task ${selection.task}` : ''})`,
      expected: 'at least one task and one surface',
    });
  }
  if (!selection.shard) return plan;
  const { index, count } = parseShard(selection.shard);
  return plan.filter((_planned, position) => position % count === index - 1);
}
