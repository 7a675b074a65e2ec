import { afterEach, describe, expect, it, vi } from 'vitest';
import { releaseMemory } from '../../src/cli/heap-policy.ts';
import { SMALL_RUN_TRIALS } from '../../src/spec/run-size.ts';

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
  it('releases above the resident-size threshold while the run size is unknown', async () => {
    const rss = vi.spyOn(process.memoryUsage, 'rss').mockReturnValue(512 * 1024 * 1024);
    await releaseMemory();
    expect(posted).toEqual(['HeapProfiler.collectGarbage']);
    posted.length = 0;
    rss.mockReturnValue(64 * 1024 * 1024);
    await releaseMemory();
    expect(posted).toEqual([]);
  });

  it('once the run size is known, releases for a large run only, whatever the resident size', async () => {
    for (const mb of [64, 512]) {
      vi.spyOn(process.memoryUsage, 'rss').mockReturnValue(mb * 1024 * 1024);
      await releaseMemory(SMALL_RUN_TRIALS);
      await releaseMemory(10);
      expect(posted).toEqual([]);
      await releaseMemory(SMALL_RUN_TRIALS + 1);
      expect(posted).toEqual(['HeapProfiler.collectGarbage']);
      posted.length = 0;
    }
  });
});
