import type { ConfigIssue, ResolvedSurface, Split, Task } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { checkTask, domainLookup, readTaskFiles, requiredActions, type LocatedTask } from './tasks.ts';

/**
 * The tasks of one domain, read and checked file by file: each task on its
 * own (`checkTask`), then the set's cross-checks — ids unique across files
 * and splits, every expected action expressible on some surface.
 *
 * File by file so that a file's text and parse are garbage once its tasks
 * are checked: checking the whole set at the end held every file's
 * SourceFile (~20 MB of text for 100,000 tasks, with their item offsets)
 * until the last file was read, at the top of a large run's load.
 * The issues are the same, in the same order within each file (loadProject
 * sorts them by file and line).
 */
export async function readCheckedTasks(
  root: string,
  name: string,
  domain: Domain,
  surfaces: ResolvedSurface[],
  surfacesFailed: boolean,
  issues: ConfigIssue[],
  /** Read only the task files this accepts (readTaskFiles). */
  only?: (path: string) => boolean,
): Promise<Task[]> {
  const lookup = domainLookup(domain);
  const set = new TaskSetCheck(surfaces, domain, surfacesFailed, issues);
  const tasks: Task[] = [];
  for (const split of ['train', 'heldout'] as const satisfies Split[]) {
    for await (const located of readTaskFiles(root, name, split, issues, only)) {
      for (const item of located) checkTask(item, domain, issues, lookup);
      set.add(located);
      for (const item of located) tasks.push(item.task);
    }
  }
  set.finish(tasks.length);
  return tasks;
}

/** Actions each surface can express: identity tools their action, multiplexed tools their map. */
function expressible(surface: ResolvedSurface): Set<string> {
  const actions = new Set<string>();
  for (const tool of surface.tools) {
    if (tool.mapping.kind === 'identity') actions.add(tool.mapping.action);
    else for (const action of Object.values(tool.mapping.map)) actions.add(action);
  }
  return actions;
}

/** Cross-file task checks, fed one file's tasks at a time: ids unique across files and splits; every expected action expressible on some surface. */
class TaskSetCheck {
  readonly #domain: Domain;
  readonly #issues: ConfigIssue[];
  readonly #actionIds: Set<string>;
  /** Each id's first task (its file and line, for the issue at a duplicate). */
  readonly #seen = new Map<string, Task>();
  /** Null when expressibility is not checked: a broken surface (its own issue is reported), or none at all (`finish`). */
  readonly #onSomeSurface: Set<string> | null;
  readonly #surfaceList: string;
  readonly #noSurfaces: boolean;

  constructor(surfaces: ResolvedSurface[], domain: Domain, surfacesFailed: boolean, issues: ConfigIssue[]) {
    this.#domain = domain;
    this.#issues = issues;
    this.#actionIds = new Set(domain.actions.map((action) => action.id));
    // With a broken surface we cannot tell what is expressible; its own issue is reported.
    this.#noSurfaces = !surfacesFailed && surfaces.length === 0;
    const bySurface = surfaces.map((surface) => ({ id: surface.id, actions: expressible(surface) }));
    this.#surfaceList = bySurface.length > 0 ? bySurface.map((surface) => surface.id).join(', ') : '(none)';
    // Expressible on some surface = expressible on their union, asked once per action rather than per surface.
    this.#onSomeSurface =
      surfacesFailed || surfaces.length === 0 ? null : new Set(bySurface.flatMap((surface) => [...surface.actions]));
  }

  /** The tasks of one file: duplicates of earlier ids first, then what no surface can express. */
  add(located: readonly LocatedTask[]): void {
    const domainName = this.#domain.name;
    for (const item of located) {
      const earlier = this.#seen.get(item.task.id);
      if (earlier) {
        const where = `${earlier.source.file}:${earlier.source.line}${earlier.split !== item.task.split ? `, in the ${earlier.split} split` : ''}`;
        this.#issues.push(
          item.source.issue([...item.path, 'id'], {
            message: `duplicate task id "${item.task.id}" (also at ${where})`,
            expected: `task ids unique within domain ${domainName} across train and held-out`,
          }),
        );
      } else this.#seen.set(item.task.id, item.task);
    }
    const onSomeSurface = this.#onSomeSurface;
    if (onSomeSurface === null) return;
    for (const item of located) {
      const expect = item.task.expect;
      // The common task names one action it expresses, nothing else: nothing to list.
      if (!expect.sequence && !expect.any_of && (expect.action === undefined || onSomeSurface.has(expect.action)))
        continue;
      const { all, anyOf } = requiredActions(item.task);
      // Unknown actions already have their own issue (with a suggestion).
      for (const action of all.filter((id) => this.#actionIds.has(id))) {
        if (!onSomeSurface.has(action)) {
          this.#issues.push(
            item.source.issue([...item.path], {
              message: `task "${item.task.id}" expects action ${action}, which no surface of domain ${domainName} can express (surfaces: ${this.#surfaceList})`,
            }),
          );
        }
      }
      if (anyOf.length > 0 && !anyOf.some((action) => onSomeSurface.has(action))) {
        this.#issues.push(
          item.source.issue([...item.path, 'expect', 'any_of'], {
            message: `task "${item.task.id}" accepts ${anyOf.join(' or ')}, none of which any surface of domain ${domainName} can express (surfaces: ${this.#surfaceList})`,
          }),
        );
      }
    }
  }

  /** After the last file: a domain with tasks but no surface at all is one issue. */
  finish(taskCount: number): void {
    const domainName = this.#domain.name;
    if (this.#noSurfaces && taskCount > 0)
      this.#issues.push({
        file: `suites/${domainName}/surfaces`,
        message: `domain ${domainName} has tasks but no surfaces, so no task can run`,
        expected: `at least one suites/${domainName}/surfaces/*.yaml`,
      });
  }
}
