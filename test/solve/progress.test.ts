import { describe, expect, it } from 'vitest';
import { createProgress, renderProgress } from '../../src/cli/progress.ts';

describe('progress bar', () => {
  it('renders done/total, errors and an ETA from the pace so far', () => {
    // 10 of 40 done in this process in 20 s → 2 s a trial → 30 left → 60 s.
    expect(renderProgress({ done: 10, total: 40, errored: 2, elapsedSeconds: 20, ranNow: 10, width: 70 })).toBe('[#####---------------] 10/40 trials · 2 errored · ETA 1:00');
    // Resumed runs: skipped trials count as done but not for the pace.
    expect(renderProgress({ done: 30, total: 40, errored: 0, elapsedSeconds: 10, ranNow: 5, width: 70 })).toBe('[###############-----] 30/40 trials · ETA 0:20');
    expect(renderProgress({ done: 0, total: 4, errored: 0, elapsedSeconds: 0, ranNow: 0, width: 70 })).toContain('ETA --:--');
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
});
