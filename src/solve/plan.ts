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
 * entry is a few references and its identity string is made only when asked
 * for (a resumed run compares them; a fresh run never needs them).
 *
 * Its task is held only until the trial is done (`releasePlannedTask`): a
 * run's plan is then the only holder of the loaded tasks, so each task, and
 * what the runner made of it (its starting messages, a first request's
 * hash, all keyed weakly by it), is garbage once its trials are written —
 * a 100,000-task run no longer carries every task to its end.
 */
class Planned implements PlannedTrial {
  #task: Task | null;
  readonly #taskId: string;

  constructor(
    readonly provider: Provider,
    readonly domain: RunDomain,
    readonly surface: ResolvedSurface,
    task: Task,
    readonly trial: number,
  ) {
    this.#task = task;
    this.#taskId = task.id;
  }

  get task(): Task {
    if (this.#task === null) throw new Error(`planned trial ${this.identity}: its task was released after the trial`);
    return this.#task;
  }

  get identity(): string {
    return trialIdentity({
      provider: this.provider.id,
      model: this.provider.model,
      domain: this.domain.name,
      surface: this.surface.id,
      task: this.#taskId,
      trial: this.trial,
    });
  }

  release(): void {
    this.#task = null;
  }
}

/**
 * Let go of a planned trial's task once the trial is written (its record
 * scored): nothing reads `planned.task` after that, and reading it then is
 * an error. A trial not made by `planTrials` is left as it is.
 */
export function releasePlannedTask(planned: PlannedTrial): void {
  if (planned instanceof Planned) planned.release();
}

/**
 * The plan's trials, each with a shallow copy of its task (one copy for the
 * trials of a task that follow one another in the plan), made as they are
 * read. Equal tasks, so a reader sees the same trials; but whatever it keeps
 * per task object (weakly keyed by it) is not found later by the plan's own
 * trials, and is garbage as soon as the reader moves on
 * (src/run/task-lifetime.ts says when that is worth it).
 */
export function* withTaskCopies(plan: readonly PlannedTrial[]): Generator<PlannedTrial> {
  let last: Task | null = null;
  let copy: Task | null = null;
  for (const planned of plan) {
    if (planned.task !== last) {
      last = planned.task;
      copy = { ...last };
    }
    const { provider, domain, surface, trial } = planned;
    yield {
      provider,
      domain,
      surface,
      task: copy!,
      trial,
      get identity() {
        return planned.identity;
      },
    };
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
