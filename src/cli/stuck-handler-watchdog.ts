import { Worker } from 'node:worker_threads';

/** After the second Ctrl-C, how long the main thread has to answer it before the process is ended. */
const GRACE_MS = 2_000;
/** How long the trials wait for the watchdog to listen for Ctrl-C before they start (it is usually ready long before). */
const READY_WAIT_MS = 10_000;

/** Slots of the memory shared with the watchdog worker. */
const ANSWERED = 0; // Ctrl-Cs the main thread handled
const HEARTBEAT = 1; // bumped by a main-thread timer while the trials run
const READY = 2; // 1 once the worker listens for SIGINT

/** The global the watchdog calls on the blocked main thread (through the inspector), once. */
const BLOCKED_HOOK = Symbol.for('toolmark.blocked-run');
/** The global the watchdog calls on the main thread (through the inspector) just before a forced stop. */
const SAVE_HOOK = Symbol.for('toolmark.save-finished');

/** What the CLI does when user code blocks the run past its limit: on the blocked thread, synchronously. */
export interface BlockedRunHandler {
  /** Record the blocked trial and print the one error line (runs on top of the blocked code). */
  report(): void;
  /** Write the finished trials a batched append still holds, just before a forced stop (on top of the blocked code). */
  saveFinished(): void;
  /** Once the blocked code is unwound: release the lock and such, then the process exits 2. */
  cleanUp(): void;
  /** Leave with this code (the real process.exit: the user-exit guard replaces it during the trials). */
  exit(code: number): never;
}

/** The watchdog of one run's trials; see `watchStuckHandlers`. */
export interface StuckHandlerWatchdog {
  /** The main thread handled a Ctrl-C. */
  answered(): void;
  /** The trials begin: listen for Ctrl-C (waiting, bounded, until the worker does) and start the heartbeat. */
  arm(run: { runDir: string; resume: string; limitMs: number }): void;
  stop(): void;
}

/**
 * Two things no code on a blocked main thread can do (a tool handler in a
 * synchronous loop, a catastrophic regex in a user schema): hear Ctrl-C,
 * and notice it has been blocked too long. A watchdog worker thread does.
 *
 * - **Ctrl-C** (SIGINT to the process, from a terminal's group or
 *   `kill -INT <pid>`): the worker listens with its own libuv signal handle
 *   (libuv hands a signal to every thread's loop that watches it, while a
 *   blocked main thread's handler never runs). Node has no public API for a
 *   worker to watch a signal, so this uses `process.binding('signal_wrap')`
 *   (deprecated, DEP0111; its warning silenced in the worker); where that
 *   is missing, a `sh` child in the process group traps SIGINT instead (a
 *   terminal's Ctrl-C only). One Ctrl-C the main thread does not answer
 *   within the grace period: a line says a handler has not returned; the
 *   second: one line and SIGKILL (the finished trials are already in
 *   trials.jsonl; `--resume` takes the stale lock over).
 * - **The time limit** (`run.user_code_limit_ms`): a main-thread timer
 *   bumps a heartbeat in shared memory; no beat for the limit means the
 *   thread is blocked. The worker then connects the inspector to the main
 *   thread and evaluates `report()` there — the inspector runs it as a V8
 *   interrupt, on top of the blocked code, where the user-code marker still
 *   says which tool and trial (src/registry/user-code-marker.ts) — then
 *   `Runtime.terminateExecution` unwinds the blocked code; the main thread's
 *   event loop runs again, cleans up, has the worker disconnect its session
 *   (else Node prints "Waiting for the debugger to disconnect") and exits 2.
 *   Without the inspector, or if the main thread does not get that far, the
 *   worker prints a line of its own and SIGKILLs the process.
 *
 * The cost on the main thread is one timer tick per heartbeat and nothing
 * per tool call (the marker existed before): measured by
 * scripts/user-code-overhead.ts.
 */
export function watchStuckHandlers(onBlocked: BlockedRunHandler): StuckHandlerWatchdog {
  const shared = new SharedArrayBuffer(12);
  const slots = new Int32Array(shared);
  // Started before the run loads, so it is up when the trials begin; it listens only once armed.
  const worker = new Worker(WATCHDOG, {
    eval: true,
    workerData: { shared, grace: GRACE_MS },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  worker.on('error', () => {});
  let heartbeat: NodeJS.Timeout | null = null;
  const hook = () => {
    delete (globalThis as Record<symbol, unknown>)[BLOCKED_HOOK];
    if (heartbeat) clearInterval(heartbeat);
    try {
      onBlocked.report();
    } finally {
      // What follows runs once terminateExecution has unwound the blocked code.
      worker.ref();
      worker.once('message', () => onBlocked.exit(2));
      setImmediate(() => {
        setTimeout(() => onBlocked.exit(2), GRACE_MS);
        try {
          onBlocked.cleanUp();
        } finally {
          worker.postMessage('disconnect');
        }
      });
    }
  };
  return {
    answered: () => void Atomics.add(slots, ANSWERED, 1),
    arm: ({ runDir, resume, limitMs }) => {
      const beat = Math.max(25, Math.min(1_000, Math.floor(limitMs / 4)));
      (globalThis as Record<symbol, unknown>)[BLOCKED_HOOK] = hook;
      (globalThis as Record<symbol, unknown>)[SAVE_HOOK] = () => onBlocked.saveFinished();
      worker.postMessage({ runDir, resume, limit: limitMs, beat });
      // Bounded: a worker that never starts must not stop the run (it then has no watchdog).
      Atomics.wait(slots, READY, 0, READY_WAIT_MS);
      heartbeat = setInterval(() => Atomics.add(slots, HEARTBEAT, 1), beat);
      heartbeat.unref();
    },
    stop: () => {
      if (heartbeat) clearInterval(heartbeat);
      delete (globalThis as Record<symbol, unknown>)[BLOCKED_HOOK];
      delete (globalThis as Record<symbol, unknown>)[SAVE_HOOK];
      worker.postMessage('stop');
    },
  };
}

// CommonJS, no imports of ours: it must start fast and run while the main thread is blocked.
const WATCHDOG = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const slots = new Int32Array(workerData.shared);
const [ANSWERED, HEARTBEAT, READY] = [${ANSWERED}, ${HEARTBEAT}, ${READY}];
const ready = () => { Atomics.store(slots, READY, 1); Atomics.notify(slots, READY); };
const savedTrials = () => {
  let saved = 0;
  try { for (const byte of fs.readFileSync(path.join(run.runDir, 'trials.jsonl'))) if (byte === 10) saved += 1; } catch {}
  return saved;
};
let stopListening = () => {};
let seen = 0;
function heardInterrupt() {
  seen += 1;
  if (seen === 1)
    setTimeout(() => {
      if (Atomics.load(slots, ANSWERED) < 1 && seen < 2)
        fs.writeSync(2, '\\ninterrupted: a tool handler has not returned, so the run cannot finish its trials (an endless loop?); Ctrl-C again to stop now, keeping the trials saved\\n');
    }, workerData.grace);
  if (seen !== 2) return;
  setTimeout(() => {
    if (Atomics.load(slots, ANSWERED) >= 2) return;
    saveFinished(() => {
      fs.writeSync(2, '\\nforced stop: a tool handler did not return (the main thread did not answer Ctrl-C within ' + workerData.grace + ' ms); ' + savedTrials() + ' trials saved; resume with: ' + run.resume + '\\n');
      process.kill(process.pid, 'SIGKILL');
    });
  }, workerData.grace);
}
// Finished trials a batched append still holds are written on the main thread, on top of the blocked
// code (an inspector evaluation runs as a V8 interrupt), before the process goes down; bounded, for a
// thread blocked where no interrupt runs (a native call).
function saveFinished(then) {
  let done = false;
  const finish = () => { if (!done) { done = true; then(); } };
  setTimeout(finish, workerData.grace);
  try {
    const saver = new (require('node:inspector').Session)();
    saver.connectToMainThread();
    saver.post('Runtime.evaluate', { expression: 'globalThis[Symbol.for("toolmark.save-finished")]?.()' }, finish);
  } catch { finish(); }
}
function listen() {
  let signals = null;
  try {
    process.noDeprecation = true;
    signals = process.binding('signal_wrap');
  } catch {}
  if (signals) {
    const handle = new signals.Signal();
    handle.onsignal = heardInterrupt;
    handle.start(2);
    stopListening = () => handle.close();
    ready();
  } else if (process.platform !== 'win32') {
    // read fails on EOF (toolmark gone) and when a trapped signal interrupts it (t=1): only EOF ends the child.
    const sentinel = require('node:child_process').spawn('sh', ['-c', "trap 't=1; echo i' INT; echo r; while :; do t=0; read x || [ $t = 1 ] || exit 0; done"], { stdio: ['pipe', 'pipe', 'ignore'] });
    sentinel.on('error', ready);
    stopListening = () => sentinel.kill();
    sentinel.stdout.on('data', (chunk) => {
      for (const letter of String(chunk)) if (letter === 'r') ready(); else if (letter === 'i') heardInterrupt();
    });
  } else ready();
}

let session = null;
let run = null;
let poll = null;
function watchHeartbeat() {
  let lastBeat = 0;
  let lastChange = Date.now();
  poll = setInterval(() => {
    const beat = Atomics.load(slots, HEARTBEAT);
    if (beat !== lastBeat) { lastBeat = beat; lastChange = Date.now(); return; }
    if (Date.now() - lastChange < run.limit) return;
    clearInterval(poll);
    blocked();
  }, run.beat);
}

function blocked() {
  // The main thread's own report, on top of the blocked code; then unwind that code.
  try {
    session = new (require('node:inspector').Session)();
    session.connectToMainThread();
    session.post('Runtime.evaluate', { expression: 'globalThis[Symbol.for("toolmark.blocked-run")]?.()' });
    session.post('Runtime.terminateExecution');
  } catch {}
  setTimeout(() => {
    fs.writeSync(2, '\\nerror: user code blocked the run for more than ' + run.limit + ' ms (run.user_code_limit_ms) and the run could not stop it; ' + savedTrials() + ' trials saved; resume with: ' + run.resume + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }, workerData.grace * 2);
}

parentPort.on('message', (message) => {
  if (message === 'disconnect') {
    try { session?.disconnect(); } catch {}
    parentPort.postMessage('exit');
  } else if (message === 'stop') {
    clearInterval(poll);
    stopListening();
    parentPort.close();
  } else {
    run = message;
    listen();
    watchHeartbeat();
  }
});
`;
