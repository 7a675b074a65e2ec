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
  /** Clear the bar (before the final table is printed). */
  stop(): void;
}

const QUIET: Progress = { start() {}, tick() {}, stop() {} };

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, '0')}`;
}

/** The bar's text for a state; pure, so it can be tested without a terminal. */
export function renderProgress(state: { done: number; total: number; errored: number; elapsedSeconds: number; ranNow: number; width?: number }): string {
  const width = Math.max(10, Math.min(30, (state.width ?? 80) - 50));
  const share = state.total === 0 ? 1 : state.done / state.total;
  const filled = Math.round(share * width);
  const remaining = state.total - state.done;
  const eta = state.ranNow > 0 ? (state.elapsedSeconds / state.ranNow) * remaining : Number.NaN;
  const errors = state.errored > 0 ? ` · ${state.errored} errored` : '';
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${state.done}/${state.total} trials${errors} · ETA ${formatDuration(eta)}`;
}

/**
 * A one-line progress bar (done / total, errors, ETA) redrawn in place. It
 * draws only on a TTY, so logs and CI output stay clean.
 */
export function createProgress(stream: ProgressStream, clock: () => number = () => performance.now()): Progress {
  if (!stream.isTTY) return QUIET;
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
    stream.write(`\r\x1b[2K${renderProgress({ done, total, errored, elapsedSeconds: (now - startedAt) / 1000, ranNow, width: stream.columns })}`);
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
    stop() {
      stream.write('\r\x1b[2K');
    },
  };
}
