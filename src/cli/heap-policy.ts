import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { isSmallRun } from '../spec/run-size.ts';

/**
 * The heap policy of the streaming commands (`run`, `merge`, `report`).
 *
 * What they keep is bounded — counters per summary group, bounded samples,
 * one record per trial in flight — so the live heap of a 100,000-trial run
 * stays around 100 MB. Yet each replayed trial leaves a few KB that outlive
 * the young generation (docs/performance.md), and V8's default policy lets
 * the old generation grow to up to 4× the live heap between two full
 * collections: a good trade for a server whose heap grows, a poor one here,
 * where that slack was most of the run's peak memory. Growing the old
 * generation by 1.5× instead costs a few more full collections (~10 ms
 * each at this size; no measurable change in throughput) and keeps the peak
 * near the live set. V8 reads this flag at every full collection, so
 * setting it when the command starts takes effect from then on (a small
 * run's trials set it back to V8's own growth: `fitHeapGrowth`).
 */
export function limitHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50');
}

/**
 * Once a run's size is known (its trials start): a small one
 * (`isSmallRun`) gives the old generation V8's own growth back. Its live
 * heap stays small (~40–60 MB through a 10,000-task replay), so the slack
 * costs little memory (peak ~220 → ~275 MB, under the 300 MB a large run is
 * held to), while the 1.5× bound made V8 run 7 full collections instead of
 * 3, four of them in the trials (~25–60 ms of the main thread each; the
 * run's CPU 10–15 % lower without them, interleaved). A large run keeps the
 * bound. The loading before (size unknown) keeps it too.
 *
 * A large run's young generation, held at its minimum since the release
 * before the trials, may grow again up to its cap through them (`youngGeneration`).
 */
export function fitHeapGrowth(plannedTrials: number): void {
  if (isSmallRun(plannedTrials)) setFlagsFromString('--heap-growing-percent=0');
  else if (youngGeneration === 'held') watchYoungGeneration('capped');
}

/**
 * Below this resident size a release is not worth its time: the two
 * releases of a 10,000-task replay (before the trials, before the reports)
 * cost 0.15–0.45 s of its ~2.5 s wall, and without them its peak is ~290 MB
 * instead of ~240 MB, still under the 300 MB a 100,000-task run is held to
 * (docs/performance.md, interleaved runs). Larger runs cross this early and
 * release as before. Only when the command's size is unknown (merge, a
 * re-score): a run's decides instead (below).
 */
const RELEASE_ABOVE_RSS = 256 * 1024 * 1024;

/*
 * A run's size (its planned trials, which the run library gives the hook
 * at every boundary) decides instead of the resident size, which sat right
 * at the threshold for both a 10,000-task replay before its reports
 * (~250–265 MB, its early chart worker included: src/run/finalizer.ts) and
 * 100,000 trials of 50 tasks (~255–270 MB), and for 100,000 distinct tasks
 * before their trials (~250–265 MB), so from run to run a release came or
 * not: ~100 ms of the first's critical path, ~30 MB of the others' peak
 * (bench figure 1c; the trials' young generation uncapped). A run of at
 * most `SMALL_RUN_TRIALS` planned trials never releases (what its trials leave is
 * small: ~60 MB of heap in use at 10,000, and its peak stays under 300 MB
 * without it); a larger one always does (`isSmallRun`, src/spec/run-size.ts).
 */

/**
 * Give memory back to the system at a phase boundary of a long command —
 * after start-up, before the trials; after the trials, before the summary
 * step; after the reducers, before the reports — when most of what the
 * previous phase allocated has just become garbage (the run library's
 * `betweenPhases` hook, src/run/events.ts, which gives a run's size).
 *
 * An ordinary full collection (`global.gc()`) is not enough: it frees the
 * objects but keeps their pages — V8 compacts only a few fragmented pages
 * per collection, and the young generation, once grown to its 2 × 16 MB,
 * stays that size — so the resident size barely moves (after a
 * 100,000-trial replay: heap used 90 → 26 MB, RSS unchanged). The
 * collection V8 runs on a low-memory notification does both: full
 * collections until nothing more is freed, compacting every fragmented
 * page, then the young generation shrunk to its minimum and the freed pages
 * returned (same point: RSS 301 → 179 MB). Node reaches it only through the
 * inspector protocol (`HeapProfiler.collectGarbage`), which an in-process
 * session may call without `--inspect` and without exposing a global `gc`.
 * It costs ~80–120 ms at the size of a 100,000-trial run. Where node is
 * built without the inspector this does nothing.
 *
 * Afterwards the young generation stays at its minimum until a large run's
 * trials let it grow back to half its default maximum (`youngGeneration`).
 *
 * `plannedTrials`: the run's size when known (`isSmallRun`): a large run
 * releases at every boundary, a small one at none. After a large run's
 * trials, their garbage died in the young generation for the most part
 * (docs/performance.md, round 9), so few full collections ran through them
 * and the old generation ends them full of it: the summary step's large
 * allocations (the manifest of every task written, then read back by the
 * reports) landed on top of it (a 100,000-task replay: ~307 MB there).
 */
export async function releaseMemory(plannedTrials?: number): Promise<void> {
  // The event loop turns once either way, as it does while a release runs, so
  // what the previous phase left pending settles before the next phase starts.
  const worthIt =
    plannedTrials === undefined ? process.memoryUsage.rss() >= RELEASE_ABOVE_RSS : !isSmallRun(plannedTrials);
  if (!worthIt) return new Promise((resolve) => setImmediate(resolve));
  let session: import('node:inspector').Session;
  try {
    const { Session } = await import('node:inspector');
    session = new Session();
    session.connect();
  } catch {
    return;
  }
  try {
    // Run by V8 as a task of its own (no JavaScript on the stack), so it completes in the reply.
    await new Promise<void>((resolve) => session.post('HeapProfiler.collectGarbage', () => resolve()));
  } finally {
    // Not inside the callback: disconnecting while the session dispatches its reply hangs.
    session.disconnect();
  }
  watchYoungGeneration('held');
}

/** The most the young generation (both semi-spaces) may grow to in a large run's trials: half V8's default. */
const YOUNG_GENERATION_CAP = 16 * 1024 * 1024;

/**
 * After a release: `held` at the minimum it was shrunk to (through the
 * summary step and the reports, and until a large run's trials start);
 * `capped` through a large run's trials, grown up to the cap.
 */
let youngGeneration: 'free' | 'held' | 'capped' = 'free';
let youngGenerationWatch: PerformanceObserver | null = null;

function youngGenerationSize(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * V8 doubles the young generation whenever enough of it survives a
 * scavenge, up to 2 × 16 MB, which the trials of a large run reach within a
 * few thousand trials and then hold throughout. Capped at half that, a
 * 100,000-trial replay uses the same CPU (what survives one scavenge of a
 * trial in flight mostly survives the next one too); at 2 MB it took ~12 %
 * more. `--max-semi-space-size` is read only when the heap is set up, but
 * the growth factor is read at every growth, so a factor of 1 stops it where
 * it is.
 *
 * The check runs after each collection (a performance observer), which
 * node delivers only when the event loop turns: the trials turn it all the
 * time, but the pre-flight, the summary step and the reports are long
 * stretches of synchronous work, in which the young generation grew past
 * the cap to 2 × 16 MB between two checks (a 100,000-task run's reports:
 * +16 MB on the run's peak). So after a release it is held where the
 * release left it (its minimum, 1–2 MB) — a factor of 1 at once — and only a
 * large run's trials let it grow to the cap (`fitHeapGrowth`). Starting a
 * worker thread puts V8's factor back to 2 (every new isolate's heap set-up
 * does), so the watch stays on and sets it again after each collection.
 */
function watchYoungGeneration(state: 'held' | 'capped'): void {
  youngGeneration = state;
  holdYoungGeneration();
  if (youngGenerationWatch) return;
  youngGenerationWatch = new PerformanceObserver(holdYoungGeneration);
  youngGenerationWatch.observe({ entryTypes: ['gc'] });
}

function holdYoungGeneration(): void {
  const grow = youngGeneration === 'capped' && youngGenerationSize() < YOUNG_GENERATION_CAP;
  setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
}
