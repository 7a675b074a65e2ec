/** A stream the progress bar draws on (process.stderr in the CLI). */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface Progress {
  /** Trials already done before this process started (resume) count as done. */
  start(info: { total: number; skipped: number }): void;
  tick(record: { status: string }): void;
  /** A line that must be seen now (a retry and its cause), printed above the bar. */
  note(line: string): void;
  /** Clear the bar (before the final table is printed). */
  stop(): void;
}

/** Without a terminal (CI logs, a pipe): a line every tenth of the run, and at least every LOG_EVERY_MS of trials finishing. */
export const LOG_EVERY_MS = 30_000;

// Offline runs (replay, scripted) have no retries to note.
const QUIET: Progress = { start() {}, tick() {}, note() {}, stop() {} };

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, '0')}`;
}

/** The bar's text for a state; pure, so it can be tested without a terminal. */
export function renderProgress(state: {
  done: number;
  total: number;
  errored: number;
  elapsedSeconds: number;
  ranNow: number;
  width?: number;
}): string {
  const width = Math.max(10, Math.min(30, (state.width ?? 80) - 50));
  const share = state.total === 0 ? 1 : state.done / state.total;
  const filled = Math.round(share * width);
  const remaining = state.total - state.done;
  const eta = state.ranNow > 0 ? (state.elapsedSeconds / state.ranNow) * remaining : Number.NaN;
  const errors = state.errored > 0 ? ` · ${state.errored} errored` : '';
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${state.done}/${state.total} trials${errors} · ETA ${formatDuration(eta)}`;
}

/**
 * Progress lines for a stream that is not a terminal: a whole line (never a
 * carriage return) when a tenth of the run is done, or when LOG_EVERY_MS
 * passed since the last line, and the last trial; notes (retries) at once.
 * A live run piped into a CI log is then never silent for long.
 */
function createLogProgress(stream: ProgressStream, clock: () => number): Progress {
  let total = 0;
  let done = 0;
  let errored = 0;
  let ranNow = 0;
  let startedAt = clock();
  let lastLine = startedAt;
  let step = 1;
  const line = (now: number) => {
    lastLine = now;
    const errors = errored > 0 ? `, ${errored} errored` : '';
    stream.write(`progress: ${done}/${total} trials${errors}, ${formatDuration((now - startedAt) / 1000)} elapsed\n`);
  };
  return {
    start(info) {
      total = info.total;
      done = info.skipped;
      startedAt = lastLine = clock();
      step = Math.max(1, Math.ceil(total / 10));
      stream.write(`progress: ${done}/${total} trials${info.skipped > 0 ? ` (${info.skipped} already done)` : ''}\n`);
    },
    tick(record) {
      done += 1;
      ranNow += 1;
      if (record.status === 'errored') errored += 1;
      const now = clock();
      if (done === total || ranNow % step === 0 || now - lastLine >= LOG_EVERY_MS) line(now);
    },
    note(text) {
      stream.write(`${text}\n`);
    },
    stop() {},
  };
}

/**
 * A one-line progress bar (done / total, errors, ETA) redrawn in place on a
 * TTY. Otherwise nothing, unless `log` (a live run: the CLI sets it), then
 * whole lines now and then (createLogProgress), so a live run is never
 * silent and an offline one's output stays clean.
 */
export function createProgress(
  stream: ProgressStream,
  clock: () => number = () => performance.now(),
  options: { log?: boolean } = {},
): Progress {
  if (!stream.isTTY) return options.log ? createLogProgress(stream, clock) : QUIET;
  let total = 0;
  let done = 0;
  let errored = 0;
  let ranNow = 0;
  let startedAt = clock();
  let lastDraw = 0;
  const draw = (force = false) => {
    const now = clock();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    stream.write(
      `\r\x1b[2K${renderProgress({ done, total, errored, elapsedSeconds: (now - startedAt) / 1000, ranNow, width: stream.columns })}`,
    );
  };
  return {
    start(info) {
      total = info.total;
      done = info.skipped;
      startedAt = clock();
      draw(true);
    },
    tick(record) {
      done += 1;
      ranNow += 1;
      if (record.status === 'errored') errored += 1;
      draw(done === total);
    },
    note(text) {
      stream.write(`\r\x1b[2K${text}\n`);
      draw(true);
    },
    stop() {
      stream.write('\r\x1b[2K');
    },
  };
}
