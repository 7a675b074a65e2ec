import { describe, expect, it } from 'vitest';
import { crowdedSince, schedulerTimes, type ThreadTimes } from '../../src/report/html/core-room.ts';

/** Scheduler readings handed out one by one, in ms (as ns). */
function readings(...times: ([number, number] | null)[]): ThreadTimes {
  return () => {
    const next = times.shift();
    return next ? { running: next[0] * 1e6, waiting: next[1] * 1e6 } : null;
  };
}

describe('crowdedSince', () => {
  it('says crowded once the thread has waited for a core more than half as long as it ran, since it was made', () => {
    const crowded = crowdedSince(readings([1000, 500], [1100, 540], [1200, 600], [1300, 800]));
    expect(crowded()).toBe(false); // ran 100 ms, waited 40
    expect(crowded()).toBe(false); // ran 200, waited 100: half, not more
    expect(crowded()).toBe(true); // ran 300, waited 300
  });

  it('never says crowded where the system does not tell', () => {
    expect(crowdedSince(readings(null, [10, 1000]))()).toBe(false);
    expect(crowdedSince(readings([10, 0], null))()).toBe(false);
  });

  it("reads this thread's times on Linux, and nothing elsewhere", () => {
    const times = schedulerTimes();
    if (process.platform !== 'linux') expect(times).toBeNull();
    else expect(times?.running).toBeGreaterThan(0);
  });
});
