import { readFileSync } from 'node:fs';

/** The calling thread's time on a core and time waiting for one (ns), or null where the system does not say. */
export type ThreadTimes = () => { running: number; waiting: number } | null;

/** Linux's scheduler accounting of the calling thread (`/proc/thread-self/schedstat`). */
export const schedulerTimes: ThreadTimes = () => {
  try {
    const [running, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return Number.isFinite(running) && Number.isFinite(waiting) ? { running: running!, waiting: waiting! } : null;
  } catch {
    return null;
  }
};

/**
 * A check of whether the calling thread, since this call, has waited for a
 * core for more than half as long as it ran on one: the cores are busy with
 * other work. Where the system does not say (not Linux), never.
 *
 * For work that is worth doing only on a core nobody else needs: the chart
 * worker's warm-up (chart-worker.ts) runs beside a run's trials, whose
 * garbage collection uses the second core too; on a crowded machine the
 * warm-up took its time from the trials.
 */
export function crowdedSince(times: ThreadTimes = schedulerTimes): () => boolean {
  const start = times();
  return () => {
    const now = start && times();
    return now !== null && now.waiting - start!.waiting > (now.running - start!.running) / 2;
  };
}
