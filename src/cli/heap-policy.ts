import { setFlagsFromString } from 'node:v8';

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
 * setting it when the command starts takes effect for the whole command.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50');
}
