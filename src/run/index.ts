/**
 * The run as a library (SPEC §9, between solve and aggregate): start,
 * resume, merge, re-score and finalize a run folder — what the CLI
 * commands call, importable by tests, scripts and other programs without a
 * subprocess. Nothing here prints, reads flags, or sets process-wide state:
 * progress and phase boundaries reach the caller through `RunEvents`, a
 * stop through an `AbortSignal`.
 */
export { runProject, resumeRun } from './run-project.ts';
export type { RunProjectOptions, ResumeRunOptions, RunResult } from './run-project.ts';
export { mergeRuns } from './merge-runs.ts';
export type { MergeRunsOptions, MergeResult } from './merge-runs.ts';
export { rescoreRun, loadProjectForRun } from './rescore-run.ts';
export type { RescoreRunOptions, RescoreResult } from './rescore-run.ts';
export { finalizeRun, configOfManifest } from './finalize-run.ts';
export type { FinalizeRunOptions, FinalizeResult } from './finalize-run.ts';
export { createRunFinalizer } from './finalizer.ts';
export type { RunFinalizer, RunFinalizerOptions } from './finalizer.ts';
export type { RunControl, RunEvents, RunPhase } from './events.ts';
export type { RunOutcome } from '../solve/index.ts';
export { toolmarkVersion } from './version.ts';
export { buildSweep, sweepProject, SWEEP_LOADING } from './sweep.ts';
export type { SweepLoading, SweepOptions, SweepResult } from './sweep.ts';
