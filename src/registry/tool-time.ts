/**
 * Simulated tool time, for offline runs (SPEC §4 step 5, docs/registry.md).
 *
 * Domain fixtures stand in for slow dependencies by sleeping
 * (`HandlerContext.sleep`): the tickets domain's slow lookup, the billing
 * ledger. Live, that is the point — the timeout boundary is real. In a
 * replay it only makes the run wait: the shipped example spent seven of
 * its nine seconds asleep. With simulated time a call keeps its own clock:
 * each sleep advances it at once instead of waiting, and when it reaches
 * the tool's `timeout_ms` the call has timed out, exactly where a real timer
 * would have fired — so every outcome is the same as with real time, and
 * the call's recorded latency is the simulated one (deterministic).
 *
 * The model: time passes only in `sleep`. Sleeps of one handler are taken
 * one after another (a handler that sleeps in parallel branches would be
 * charged their sum); real asynchronous work still takes real time, and the
 * real timer stays armed as a safety net.
 *
 * A sleep that ends exactly at the timeout is decided as real timers decide
 * it: of two timers due at the same moment the one armed first fires first.
 * So it completes when it began before the call's timeout was armed (a
 * handler's first sleep, begun before the handler's first await) and times
 * the call out when it began after (any later sleep).
 */
export class SimulatedCallTime {
  /** Simulated milliseconds the handler has slept so far. */
  elapsedMs = 0;
  readonly #timeoutMs: number;
  /** Made when the boundary first asks for it: a call whose handler finishes at once never does. */
  #expired: Promise<void> | null = null;
  #expire: (() => void) | null = null;
  #timeoutArmed = false;
  #hasExpired = false;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** The boundary arms the call's timeout now: a later sleep that ends exactly at it loses the tie. */
  armTimeout(): void {
    this.#timeoutArmed = true;
  }

  /** Has simulated time reached the timeout (the call has timed out, whatever its handler returned)? */
  get hasExpired(): boolean {
    return this.#hasExpired;
  }

  /** Settles when simulated time reaches the timeout (the boundary then times the call out). */
  get expired(): Promise<void> {
    this.#expired ??= this.#hasExpired ? Promise.resolve() : new Promise((resolve) => (this.#expire = resolve));
    return this.#expired;
  }

  /**
   * The handler's sleep: resolves at once after advancing the clock, or —
   * when it would pass the timeout — stops the clock there, expires the call
   * and rejects with the abort reason once the boundary aborts `signal`.
   */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const duration = Math.max(0, ms);
    const end = this.elapsedMs + duration;
    if (end < this.#timeoutMs || (end === this.#timeoutMs && !this.#timeoutArmed)) {
      this.elapsedMs += duration;
      return Promise.resolve();
    }
    this.elapsedMs = this.#timeoutMs;
    this.#hasExpired = true;
    this.#expire?.();
    return new Promise((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
    );
  }
}
