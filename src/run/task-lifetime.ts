import type { Project } from '../load/index.ts';
import { scoreTrial } from '../score/index.ts';
import { preflight, type PlannedTrial } from '../solve/index.ts';
import { releasePlannedTask, withTaskCopies } from '../solve/plan.ts';
import type { ModelRequest, TrialRecord } from '../spec/index.ts';
import { isSmallRun } from '../spec/run-size.ts';

/*
 * How long a run holds its tasks. A 100,000-task run held every loaded
 * task (~0.5 KB each), and what the runner keeps per task, to its end; its
 * peak memory is held to 300 MB (docs/performance.md). So: the pre-flight
 * of a large plan keeps nothing per task, the plan becomes the tasks' only
 * holder once the manifest is written, and each planned trial lets go of
 * its task once the trial is scored.
 */

/**
 * Check every trial's first turn before the first trial (a stale or
 * incomplete cassette stops here). The runner keeps, per task object, its
 * starting messages and the hash of its first request (src/solve/request.ts,
 * src/spec/request-hash.ts), so that turn 0 of a trial finds the
 * pre-flight's hash instead of hashing the same request again. Only a small
 * plan (`isSmallRun`) shares them: on a larger one that is ~0.5 KB a task,
 * made for every task here and held until the task's trial (~50 MB of a
 * 100,000-task run's heap at the start of its trials, where its peak was).
 * There the pre-flight reads copies of the tasks (`withTaskCopies`), so
 * what it makes of each is garbage as soon as it moves on, and each trial
 * hashes its first request again (~10 µs).
 */
export function preflightRun(plan: readonly PlannedTrial[], settings: ModelRequest['settings']): void {
  const small = isSmallRun(plan.length);
  preflight(small ? plan : withTaskCopies(plan), { settings, askedOnce: !small });
}

/**
 * After the manifest, the plan is the only thing a run needs its tasks for:
 * the project's lists are emptied, so that each planned trial holds its
 * task until the trial is scored (`scoreAndLetGo`), and the task — with
 * what the runner keeps per task, weakly keyed by it — is garbage from then
 * on. Only for a project the run loaded itself: a caller's project (a
 * sweep's) is the caller's to keep.
 */
export function handTasksToPlan(project: Project): void {
  for (const domain of project.domains) domain.tasks = [];
}

/**
 * Grade a finished trial, then let go of its task: the record is written
 * next and nothing reads the task after it — but for a blocked trial's
 * report, which names the task after writing it, hence the microtask.
 */
export function scoreAndLetGo(record: TrialRecord, planned: PlannedTrial): TrialRecord {
  const scored = scoreTrial(record, planned.task, planned.domain.domain.actions);
  // A reaction of a settled promise: the same microtask turn as `queueMicrotask`, without the
  // async resource node makes for each of those (a replayed trial's share was ~1–2 µs).
  void SETTLED.then(() => releasePlannedTask(planned));
  return scored;
}

const SETTLED = Promise.resolve();
