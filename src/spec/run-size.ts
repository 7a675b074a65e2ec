/**
 * The size up to which a run counts as small: at most this many planned
 * trials. A small run keeps what it makes resident and spends the second
 * core early, because its critical path is what users wait on and its peak
 * stays under the 300 MB a 100,000-trial run is held to (a 10,000-task
 * replay peaks at ~265–280 MB); a larger run trades those ~0.1–0.3 s for memory.
 * Five choices follow it, each explained where it is made:
 * - no memory release after the trials or before the reports (src/cli/heap-policy.ts);
 * - V8's own old-generation growth through the trials (src/cli/heap-policy.ts);
 * - the chart worker started with the trials (src/run/finalizer.ts);
 * - the pre-flight's first-request hashes kept for turn 0
 *   (src/run/task-lifetime.ts);
 * - report.html made (all but its charts) while its charts are drawn
 *   (src/report/html/page.ts).
 * One bound for the five, so a run is never "small" for one and "large"
 * for another (docs/performance.md).
 */
export const SMALL_RUN_TRIALS = 20_000;

/** Whether a run of `plannedTrials` is small (see `SMALL_RUN_TRIALS`). */
export function isSmallRun(plannedTrials: number): boolean {
  return plannedTrials <= SMALL_RUN_TRIALS;
}
