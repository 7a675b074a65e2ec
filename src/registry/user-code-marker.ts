/**
 * Which user code is running right now (a tool's handler or schema, a
 * domain's createState) and for whom (its `owner`, a trial), so that
 * `toolmark run` can name it when it calls process.exit during the trials
 * (src/cli/user-exit-guard.ts) or blocks the main thread past the run's
 * time limit (src/cli/stuck-handler-watchdog.ts, which reads this from the
 * blocked thread itself). Only the synchronous part of a call is marked:
 * two variables, no AsyncLocalStorage on the hot path. A call that returns
 * a promise is also kept in `pending` until it settles, so a loop after an
 * `await` can be narrowed to the async calls not yet settled.
 */
let running: string | null = null;
let runningOwner: unknown = undefined;
const pending = new Set<UserCode>();

/** A piece of user code and who it runs for. */
export interface UserCode {
  what: string;
  owner: unknown;
}

export function runningUserCode(): string | null {
  return running;
}

/** The user code running synchronously now, or null (then see `pendingUserCode`). */
export function runningUserCall(): UserCode | null {
  return running === null ? null : { what: running, owner: runningOwner };
}

/** Async user calls started and not yet settled, oldest first. */
export function pendingUserCode(): UserCode[] {
  return [...pending];
}

/** `call()` with `what` (run for `owner`) marked as the user code running. */
export function callUserCode<T>(what: string, call: () => T, owner?: unknown): T {
  const before = running;
  const ownerBefore = runningOwner;
  running = what;
  runningOwner = owner;
  try {
    const result = call();
    if (result instanceof Promise) {
      // Only async calls pay for this (a set entry and one handler), the sync hot path does not.
      const entry = { what, owner };
      pending.add(entry);
      const settled = () => void pending.delete(entry);
      result.then(settled, settled);
    }
    return result;
  } finally {
    running = before;
    runningOwner = ownerBefore;
  }
}
