import { describe, expect, it } from 'vitest';
import { createProgress, renderProgress } from '../../src/cli/progress.ts';

describe('progress bar', () => {
  it('renders done/total, errors and an ETA from the pace so far', () => {
    // 10 of 40 done in this process in 20 s → 2 s a trial → 30 left → 60 s.
    expect(renderProgress({ done: 10, total: 40, errored: 2, elapsedSeconds: 20, ranNow: 10, width: 70 })).toBe(
      '[#####---------------] 10/40 trials · 2 errored · ETA 1:00',
    );
    // Resumed runs: skipped trials count as done but not for the pace.
    expect(renderProgress({ done: 30, total: 40, errored: 0, elapsedSeconds: 10, ranNow: 5, width: 70 })).toBe(
      '[###############-----] 30/40 trials · ETA 0:20',
    );
    expect(renderProgress({ done: 0, total: 4, errored: 0, elapsedSeconds: 0, ranNow: 0, width: 70 })).toContain(
      'ETA --:--',
    );
  });

  it('draws only on a TTY', () => {
    const written: string[] = [];
    const quiet = createProgress({ isTTY: false, write: (text) => written.push(text) });
    quiet.start({ total: 2, skipped: 0 });
    quiet.tick({ status: 'completed' });
    quiet.stop();
    expect(written).toEqual([]);

    let now = 0;
    const tty = createProgress({ isTTY: true, columns: 70, write: (text) => written.push(text) }, () => now);
    tty.start({ total: 2, skipped: 0 });
    now = 1000;
    tty.tick({ status: 'errored' });
    now = 2000;
    tty.tick({ status: 'completed' });
    tty.stop();
    expect(written.some((text) => text.includes('1/2 trials · 1 errored'))).toBe(true);
    expect(written.at(-2)).toContain('2/2 trials · 1 errored · ETA 0:00');
  });

  it('without a terminal, a live run logs whole lines: every tenth of the run, after 30 s of silence, the last trial, and notes', () => {
    const written: string[] = [];
    let now = 0;
    const log = createProgress({ isTTY: false, write: (text) => written.push(text) }, () => now, { log: true });
    log.start({ total: 20, skipped: 0 });
    for (let index = 0; index < 3; index += 1) {
      now += 1_000;
      log.tick({ status: index === 0 ? 'errored' : 'completed' });
    }
    now += 40_000; // a slow trial: the next tick is past LOG_EVERY_MS since the last line
    log.tick({ status: 'completed' });
    log.note('retry: p:m d/t/s trial 0: attempt 1 failed (HTTP 429: slow down); retrying in 500 ms');
    for (let index = 0; index < 16; index += 1) log.tick({ status: 'completed' });
    expect(written).toEqual([
      'progress: 0/20 trials\n',
      'progress: 2/20 trials, 1 errored, 0:02 elapsed\n',
      'progress: 4/20 trials, 1 errored, 0:43 elapsed\n',
      'retry: p:m d/t/s trial 0: attempt 1 failed (HTTP 429: slow down); retrying in 500 ms\n',
      'progress: 6/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 8/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 10/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 12/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 14/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 16/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 18/20 trials, 1 errored, 0:43 elapsed\n',
      'progress: 20/20 trials, 1 errored, 0:43 elapsed\n',
    ]);
  });
});
