import { loadConfig } from '../load/config.ts';
import { domainInputDigest } from '../load/input-digest.ts';
import { loadTaskFiles } from '../load/task-files.ts';
import type { ActionSpec, ConfigIssue, Manifest, ProjectConfig, Task } from '../spec/index.ts';
import { changedTaskFiles, taskIdDigests, type GradingInputs } from './grading-inputs.ts';

/** A task to grade trials against, with its domain's actions. */
export interface Grading {
  task: Task;
  actions: readonly ActionSpec[];
}

/** The key of a task in the maps of a re-score. */
export function taskKey(domain: string, id: string): string {
  return `${domain}\u0000${id}`;
}

/** What a re-score of only the changed task files needs. */
export interface PartialRescore {
  config: ProjectConfig;
  /** The tasks of the changed files (`domain\0id`): only their trials are graded again. */
  today: Map<string, Grading>;
  /** The grading inputs after the re-score: what a full re-score would record. */
  inputs: GradingInputs;
}

/**
 * The re-score of a run after an edit of some task files, when it can be
 * done without loading the rest of the project (`toolmark report --rescore`).
 *
 * Grading is a pure function of a trial's record, its task, the domain's
 * actions and toolmark's code; a run records the digest of each file of its
 * domains and of the ids in each task file (src/run/grading-inputs.ts). When
 * only task files changed, and each still holds the same task ids, every
 * other task is the very one the run graded with, so its trials keep their
 * recorded grades, and only the changed files are parsed and checked.
 * The ids rule keeps the project-wide checks of a full load true: no task
 * appears, disappears or moves, so ids stay unique and every task of the run
 * is still there.
 *
 * Null whenever that does not hold — a domain file, the config or the code
 * changed, a file came or went, ids changed, a changed file has an issue, a
 * file changed again while it loaded — and the caller loads the whole
 * project and grades everything, with the full load's errors.
 */
export async function partialRescore(root: string, manifest: Manifest): Promise<PartialRescore | null> {
  const recorded = manifest.grading_inputs;
  if (recorded === undefined || manifest.finished_at === null || manifest.partial !== undefined) return null;
  const found = changedTaskFiles(recorded, root);
  if (found === null || found.changed.size === 0) return null;
  const issues: ConfigIssue[] = [];
  const { config } = await loadConfig(root, issues);
  if (issues.length > 0) return null;
  const today = new Map<string, Grading>();
  for (const [name, files] of found.changed) {
    const loaded = await loadTaskFiles(root, name, files);
    if (loaded === null) return null;
    const ids = taskIdDigests(loaded.tasks);
    if ([...files].some((file) => ids[file] !== recorded.task_ids![file])) return null;
    for (const task of loaded.tasks) today.set(taskKey(name, task.id), { task, actions: loaded.domain.actions });
  }
  // Digested again: the files loaded are the ones found changed (none changed meanwhile).
  const after = changedTaskFiles(recorded, root);
  if (after === null || JSON.stringify(after.files) !== JSON.stringify(found.files)) return null;
  const domains: Record<string, string> = {};
  for (const name of Object.keys(recorded.domains)) {
    const digest = domainInputDigest(root, name);
    if (digest === null) return null;
    domains[name] = digest;
  }
  return {
    config,
    today,
    inputs: { ...recorded, domains, files: found.files, task_ids: recorded.task_ids },
  };
}
