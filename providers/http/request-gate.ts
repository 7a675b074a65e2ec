import pLimit from 'p-limit';
import { abortableSleep } from './sleep.ts';

/** Limits for one provider instance. */
export interface RequestGateOptions {
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Optional cap on request starts per minute; below 1 means one start per 60/rate seconds (0.5 → one every 120 s). */
  requestsPerMinute?: number;
  /** Injected clock and sleep, for tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Admits one HTTP attempt at a time through the concurrency and rate caps. */
export interface RequestGate {
  run<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly active: number;
  readonly pending: number;
}

const WINDOW_MS = 60_000;

/**
 * A concurrency cap (p-limit) plus an optional sliding-window rate cap: no
 * more than `requestsPerMinute` attempts start in any 60 s window. Each
 * attempt passes the gate separately, so a request sleeping in backoff does
 * not hold a slot that another request could use.
 */
export function createRequestGate(options: RequestGateOptions = {}): RequestGate {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const limit = pLimit(concurrency);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const rate =
    options.requestsPerMinute !== undefined && options.requestsPerMinute > 0 ? options.requestsPerMinute : null;
  // At least one start per window: a rate below 1 a minute widens the window instead (floor(0.5) would admit nothing).
  const perMinute = rate === null ? null : Math.max(1, Math.floor(rate));
  const windowMs = rate === null || rate >= 1 ? WINDOW_MS : WINDOW_MS / rate;
  // Start times of the attempts in the current window, oldest first.
  const starts: number[] = [];

  async function waitForRateSlot(signal?: AbortSignal): Promise<void> {
    if (perMinute === null) return;
    for (;;) {
      const time = now();
      while (starts.length > 0 && starts[0]! <= time - windowMs) starts.shift();
      if (starts.length < perMinute) {
        starts.push(time);
        return;
      }
      await sleep(starts[0]! + windowMs - time, signal);
    }
  }

  return {
    run<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return limit(async () => {
        signal?.throwIfAborted();
        await waitForRateSlot(signal);
        return attempt();
      });
    },
    get active() {
      return limit.activeCount;
    },
    get pending() {
      return limit.pendingCount;
    },
  };
}
