import { Worker } from 'node:worker_threads';

/** After the second Ctrl-C, how long the main thread has to answer it before the process is ended. */
const GRACE_MS = 2_000;

/**
 * The second Ctrl-C of a run whose main thread is blocked (a tool handler
 * in a synchronous loop): a blocked thread runs no JS signal handler, and a
 * worker thread receives no signals. But Ctrl-C goes to the terminal's
 * whole foreground process group, so a tiny `sh` child (same group) traps
 * SIGINT and tells a watchdog worker thread; the main thread counts the
 * Ctrl-Cs it handled in shared memory (`answered`). One Ctrl-C not answered
 * within the grace period: the worker says a handler has not returned; two
 * seen and fewer than two answered: it prints one line and SIGKILLs the
 * process. What finished is
 * already in trials.jsonl (appended as each trial ends); the manifest stays
 * unfinished and the lock is stale, so `--resume` takes it over and goes on
 * (docs/reliability.md §14). No `sh` (Windows): no watchdog.
 */
export function watchStuckHandlers(runDir: string, resume: string): { answered: () => void; stop: () => void } {
  if (process.platform === 'win32') return { answered: () => {}, stop: () => {} };
  const shared = new SharedArrayBuffer(4);
  const count = new Int32Array(shared);
  const worker = new Worker(WATCHDOG, {
    eval: true,
    workerData: { shared, runDir, resume, grace: GRACE_MS },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  worker.on('error', () => {});
  return {
    answered: () => void Atomics.add(count, 0, 1),
    stop: () => {
      worker.postMessage('stop');
    },
  };
}

// CommonJS, no imports of ours: it must start fast and run while the main thread is blocked.
const WATCHDOG = `
const { workerData, parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const answered = new Int32Array(workerData.shared);
// read fails on EOF (toolmark gone) and when a trapped signal interrupts it (t=1): only EOF ends the child.
const sentinel = spawn('sh', ['-c', "trap 't=1; echo i' INT; while :; do t=0; read x || [ $t = 1 ] || exit 0; done"], {
  stdio: ['pipe', 'pipe', 'ignore'],
});
sentinel.on('error', () => {});
parentPort.once('message', () => { sentinel.kill(); parentPort.close(); });
let seen = 0;
sentinel.stdout.on('data', (chunk) => {
  const before = seen;
  seen += String(chunk).split('i').length - 1;
  if (before < 1 && seen >= 1 && seen < 2)
    setTimeout(() => {
      if (Atomics.load(answered, 0) < 1 && seen < 2)
        fs.writeSync(2, '\\ninterrupted: a tool handler has not returned, so the run cannot finish its trials (an endless loop?); Ctrl-C again to stop now, keeping the trials saved\\n');
    }, workerData.grace);
  if (before >= 2 || seen < 2) return;
  setTimeout(() => {
    if (Atomics.load(answered, 0) >= 2) return;
    let saved = 0;
    try {
      const text = fs.readFileSync(path.join(workerData.runDir, 'trials.jsonl'));
      for (const byte of text) if (byte === 10) saved += 1;
    } catch {}
    fs.writeSync(2, '\\nforced stop: a tool handler did not return (the main thread did not answer Ctrl-C within ' + workerData.grace + ' ms); ' + saved + ' trials saved; resume with: ' + workerData.resume + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }, workerData.grace);
});
`;
