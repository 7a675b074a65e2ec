import { Worker } from 'node:worker_threads';

/** How long importing a user's module (and, for a domain, creating two states) may take. */
export const USER_CODE_TIME_LIMIT_MS = 30_000;

/** Past the limit, how long the watchdog waits for the main thread's own timer before it ends the process. */
const WATCHDOG_GRACE_MS = 2_000;

/** User code at load time hung or called process.exit (not an ordinary throw of its own). */
export class UserCodeStopped extends Error {
  override name = 'UserCodeStopped';
  constructor(message: string) {
    super(message);
    // The location is the user's: our own frames (this file, the timer) would be read as the culprit.
    this.stack = (this.stack ?? message)
      .split('\n')
      .filter(
        (line, index) =>
          index === 0 || !/user-code-guard|node:internal|^\s+at (listOnTimeout|process\.processTimers)/.test(line),
      )
      .join('\n');
  }
}

/**
 * Run user code at load time (importing a domain.ts, calling its
 * createState) so that it cannot hang or end the process silently:
 * - a promise that never settles (a top-level await) fails after the limit:
 *   an ordinary error, exit 2;
 * - an endless synchronous loop blocks this thread, so no timer of ours can
 *   fire: a watchdog worker thread (a few lines, no imports; ~20 ms to
 *   start) then prints the error and kills the process (exit 137, by
 *   SIGKILL: a blocked thread handles no signal);
 * - `process.exit()` throws instead, so the import fails with the file and
 *   line of the call.
 * Measured alternative, not taken: importing each module first in a worker
 * (a worker can be terminated mid-loop) doubled `toolmark validate`'s CPU
 * time on the shipped example (docs/reliability.md).
 */
export async function guardUserCode<T>(what: string, file: string, run: () => Promise<T>): Promise<T> {
  const limit = timeLimit();
  const message = `error: ${file}: ${what} did not finish within ${limit} ms (an endless loop?); stopped. Limit: TOOLMARK_IMPORT_TIMEOUT_MS\n`;
  const disarm = armWatchdog(message, limit + WATCHDOG_GRACE_MS);
  const exit = process.exit;
  process.exit = ((code?: number | string | null) => {
    throw new UserCodeStopped(`called process.exit(${code ?? ''}); user code must not end the process`);
  }) as typeof process.exit;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new UserCodeStopped(
                `${what} did not finish within ${limit} ms: a promise that never settles (a top-level await)? Limit: TOOLMARK_IMPORT_TIMEOUT_MS`,
              ),
            ),
          limit,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    process.exit = exit;
    disarm();
  }
}

/**
 * The watchdog worker, shared by the guarded calls of a load: each call arms
 * a timer in it and disarms it when done. One worker per call cost the
 * shipped example's `validate` four worker starts (two calls per domain:
 * ~15 ms of CPU each, and their start on this thread); it is ended once no
 * call has been armed for `WATCHDOG_IDLE_MS`, so it does not stay for a run.
 */
const WATCHDOG_IDLE_MS = 250;
const WATCHDOG_SOURCE = `const { parentPort } = require('node:worker_threads');
const timers = new Map();
parentPort.on('message', ({ id, message, after }) => {
  if (message === undefined) return void (clearTimeout(timers.get(id)), timers.delete(id));
  timers.set(id, setTimeout(() => { require('node:fs').writeSync(2, message); process.kill(process.pid, 'SIGKILL'); }, after));
});`;
let watchdog: { worker: Worker; armed: number; idle: NodeJS.Timeout | null } | null = null;
let nextId = 0;

/** Arm the watchdog: past `after` ms it prints `message` and kills the process. Returns the disarm. */
function armWatchdog(message: string, after: number): () => void {
  if (watchdog === null) {
    const worker = new Worker(WATCHDOG_SOURCE, { eval: true });
    worker.unref();
    watchdog = { worker, armed: 0, idle: null };
  }
  const current = watchdog;
  const id = nextId++;
  if (current.idle) clearTimeout(current.idle);
  current.armed += 1;
  current.worker.postMessage({ id, message, after });
  return () => {
    current.worker.postMessage({ id });
    if (--current.armed > 0) return;
    current.idle = setTimeout(() => {
      if (watchdog === current) watchdog = null;
      void current.worker.terminate();
    }, WATCHDOG_IDLE_MS);
    current.idle.unref();
  };
}

/**
 * End the watchdog now if no guarded call is running (a later call starts a
 * new one). A load calls it once its domains are imported, so the worker's
 * teardown overlaps the rest of the load instead of holding up the process's
 * exit (~20–30 ms of `validate`'s wall on the shipped example, measured on a
 * loaded host).
 */
export function endWatchdog(): void {
  const current = watchdog;
  if (current === null || current.armed > 0) return;
  if (current.idle) clearTimeout(current.idle);
  watchdog = null;
  void current.worker.terminate();
}

function timeLimit(): number {
  const value = Number(process.env.TOOLMARK_IMPORT_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : USER_CODE_TIME_LIMIT_MS;
}
