import type { ReceiptStore } from './receipt-store.ts';

/** A sleep that rejects with the signal's reason as soon as it is aborted. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export type BoundaryOutcome<T> = { kind: 'done'; value: T } | { kind: 'timeout' } | { kind: 'cancelled' };

/**
 * An AbortController made only when its signal is first read. A call whose
 * handler finishes synchronously and never looks at `signal` (a fixture
 * tool: most calls of a replayed run) never needs one, and making one per
 * call was a measurable share of a replayed trial (an AbortSignal is an
 * EventTarget). Aborted before it was made, it is made aborted, with the
 * same reason, so the handler sees exactly what an eager controller shows.
 */
export class LazyAbortController {
  #controller: AbortController | null = null;
  #aborted = false;
  #reason: unknown = undefined;

  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** The outcomes that carry no value, made once (callers only read them). */
const TIMED_OUT: BoundaryOutcome<never> = Object.freeze({ kind: 'timeout' });
const CANCELLED: BoundaryOutcome<never> = Object.freeze({ kind: 'cancelled' });
/** `addEventListener`'s options, made once. */
const ONCE = Object.freeze({ once: true });

// Module-level reactions rather than closures made per call: a replayed
// trial's tool call passes through here, and what it allocated was a share
// of the trials' garbage. The chain of promises, and so the order in which
// concurrent calls resume, is the same as with the closures.
function doneOutcome<T>(value: T): BoundaryOutcome<T> {
  return { kind: 'done', value };
}
function timedOut(): BoundaryOutcome<never> {
  return TIMED_OUT;
}
function ignore(): undefined {
  return undefined;
}

/**
 * The boundaries in flight on each outer signal, all told by one 'abort'
 * listener of the signal (in the order they started, as their own
 * listeners were), rather than each adding and removing a listener of its
 * own: node's EventTarget made a listener record and a bound function per
 * tool call, a share of a replayed trial's cost and garbage.
 */
const boundaries = new WeakMap<AbortSignal, Set<(outcome: BoundaryOutcome<never>) => void>>();

function boundariesOn(signal: AbortSignal): Set<(outcome: BoundaryOutcome<never>) => void> {
  let waiting = boundaries.get(signal);
  if (waiting === undefined) {
    const created = new Set<(outcome: BoundaryOutcome<never>) => void>();
    boundaries.set(signal, (waiting = created));
    signal.addEventListener(
      'abort',
      () => {
        // An interrupted boundary leaves the set only in its `finally`, after this loop.
        for (const interrupt of created) interrupt(CANCELLED);
        created.clear();
      },
      ONCE,
    );
  }
  return waiting;
}

/**
 * `Promise.race` of two or three promises, without the array and the
 * iterator it walks (per tool call): the same `then` on each, in the same
 * order, so the same microtask turns.
 */
function firstOf<T>(first: Promise<T>, second: Promise<T>, third: Promise<T> | null): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    first.then(resolve, reject);
    second.then(resolve, reject);
    third?.then(resolve, reject);
  });
}

/**
 * Race `work` against a timer (and, on simulated time, the call's simulated
 * deadline) and an outer signal. Whichever ends first
 * wins; on a timeout or cancel, `controller` is aborted so the handler stops
 * (its sleeps reject, its pre-write check throws) and `work` keeps running
 * only to be awaited by whoever needs its late settlement.
 */
export async function raceBoundary<T>(
  work: Promise<T>,
  options: {
    timeoutMs: number;
    controller: Pick<AbortController, 'abort'>;
    outer?: AbortSignal;
    expired?: Promise<void>;
  },
): Promise<BoundaryOutcome<T>> {
  const { timeoutMs, controller, outer, expired } = options;
  // The timer and the outer signal settle one promise: the first to settle it wins, as the first of two would.
  let interrupt!: (outcome: BoundaryOutcome<T>) => void;
  const interrupted = new Promise<BoundaryOutcome<T>>((resolve) => {
    interrupt = resolve;
  });
  // Armed even for a handler that has already returned: left out for those, a run stopped for
  // blocked user code (src/cli/stuck-handler-watchdog.ts) lost its other trials in flight
  // (test/reliability/blocked-user-code.test.ts): after the forced stop, a timer is what ends their calls.
  const timer = setTimeout(interrupt, timeoutMs, TIMED_OUT);
  let waiting: Set<(outcome: BoundaryOutcome<never>) => void> | undefined;
  if (outer) {
    if (outer.aborted) interrupt(CANCELLED);
    else (waiting = boundariesOn(outer)).add(interrupt);
  }
  // A rejection after we stopped listening must not surface as unhandled.
  work.catch(ignore);
  try {
    // `expired`: simulated time reached the timeout (tool-time.ts); the real timer stays armed as a safety net.
    const done = work.then(doneOutcome<T>);
    const outcome = await firstOf(done, interrupted, expired ? expired.then(timedOut) : null);
    if (outcome.kind !== 'done') controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
    return outcome;
  } finally {
    clearTimeout(timer);
    waiting?.delete(interrupt);
  }
}

// Per receipt store: the tail of the queue of calls holding each (tool, key).
// Keyed weakly by the store, which is what the calls contend for.
const keyQueues = new WeakMap<ReceiptStore, Map<string, Promise<void>>>();

/**
 * Run `fn` while holding the lock for one (tool, idempotency key) in one
 * store object. Not what stops a double write (the store's atomic `claim`
 * does that, across handles and processes too): it makes a same-process
 * duplicate wait and replay the receipt instead of being told the key is
 * still in progress.
 */
export async function withKeyLock<T>(store: ReceiptStore, id: string, fn: () => Promise<T>): Promise<T> {
  let queues = keyQueues.get(store);
  if (!queues) {
    queues = new Map();
    keyQueues.set(store, queues);
  }
  const previous = queues.get(id) ?? Promise.resolve();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const mine = previous.then(() => gate);
  queues.set(id, mine);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (queues.get(id) === mine) queues.delete(id);
  }
}
