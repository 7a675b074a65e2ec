import { afterEach, describe, expect, it, vi } from 'vitest';
import { releaseMemory, SMALL_RUN_TRIALS } from '../../src/cli/heap-policy.ts';

/** The inspector sessions a release opened, and what each asked V8 for. */
const posted: string[] = [];

vi.mock('node:inspector', () => ({
  Session: class {
    connect() {}
    disconnect() {}
    post(method: string, callback: () => void) {
      posted.push(method);
      callback();
    }
  },
}));

afterEach(() => {
  posted.length = 0;
  vi.restoreAllMocks();
});

describe('the heap policy between phases', () => {
  it('releases above the resident-size threshold, unless the run is known to be small', async () => {
    vi.spyOn(process.memoryUsage, 'rss').mockReturnValue(512 * 1024 * 1024);
    await releaseMemory();
    await releaseMemory(SMALL_RUN_TRIALS + 1);
    expect(posted).toEqual(['HeapProfiler.collectGarbage', 'HeapProfiler.collectGarbage']);
    posted.length = 0;
    await releaseMemory(SMALL_RUN_TRIALS);
    await releaseMemory(10);
    expect(posted).toEqual([]);
  });

  it('does not release below the threshold, whatever the run', async () => {
    vi.spyOn(process.memoryUsage, 'rss').mockReturnValue(64 * 1024 * 1024);
    await releaseMemory();
    await releaseMemory(SMALL_RUN_TRIALS * 10);
    expect(posted).toEqual([]);
  });
});
