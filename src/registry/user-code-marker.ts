/**
 * Which user code is running synchronously right now (a tool's handler, a
 * domain's createState), so that `toolmark run` can name it when it calls
 * process.exit during the trials (src/cli/user-exit-guard.ts). Only the
 * synchronous part of a call is marked: one variable, no AsyncLocalStorage
 * on the hot path; a process.exit after an await is reported by its stack.
 */
let running: string | null = null;

export function runningUserCode(): string | null {
  return running;
}

/** `call()` with `what` marked as the user code running. */
export function callUserCode<T>(what: string, call: () => T): T {
  const before = running;
  running = what;
  try {
    return call();
  } finally {
    running = before;
  }
}
