import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SMALL_RUN_TRIALS } from '../../src/spec/run-size.ts';

type HeapPolicy = typeof import('../../src/cli/heap-policy.ts');

/** The policy afresh for each test: its state (the young generation held or not) is the module's. */
let fitHeapGrowth: HeapPolicy['fitHeapGrowth'];
let limitHeapGrowth: HeapPolicy['limitHeapGrowth'];
let releaseMemory: HeapPolicy['releaseMemory'];
beforeEach(async () => {
  vi.resetModules();
  ({ fitHeapGrowth, limitHeapGrowth, releaseMemory } = await import('../../src/cli/heap-policy.ts'));
});

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

/** The V8 flags the policy set. */
const flags: string[] = [];

/** The young generation's size (both semi-spaces) V8 reports. */
let youngGenerationBytes = 1024 * 1024;

vi.mock('node:v8', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:v8')>()),
  setFlagsFromString: (flag: string) => void flags.push(flag),
  getHeapSpaceStatistics: () => [
    { space_name: 'old_space', space_size: 64 * 1024 * 1024 },
    { space_name: 'new_space', space_size: youngGenerationBytes },
  ],
}));

afterEach(() => {
  posted.length = 0;
  flags.length = 0;
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

describe('the young generation', () => {
  // The last factor set (a collection meanwhile sets it again, to the same).
  const factor = () => flags.filter((flag) => flag.startsWith('--semi-space-growth-factor')).at(-1);

  it('is held where a release left it, and grows again only through the trials of a large run, below 16 MB', async () => {
    youngGenerationBytes = 1024 * 1024;
    await releaseMemory(SMALL_RUN_TRIALS + 1);
    expect(factor()).toBe('--semi-space-growth-factor=1');
    fitHeapGrowth(SMALL_RUN_TRIALS);
    expect(factor()).toBe('--semi-space-growth-factor=1');
    fitHeapGrowth(SMALL_RUN_TRIALS + 1);
    // Below the cap (just shrunk by the release): V8's factor again.
    expect(factor()).toBe('--semi-space-growth-factor=2');
    await releaseMemory(SMALL_RUN_TRIALS + 1);
    expect(factor()).toBe('--semi-space-growth-factor=1');
  });

  it('does not grow past 16 MB through the trials of a large run', async () => {
    for (const [bytes, expected] of [
      [16 * 1024 * 1024 - 1, '--semi-space-growth-factor=2'],
      [16 * 1024 * 1024, '--semi-space-growth-factor=1'],
    ] as const) {
      await releaseMemory(SMALL_RUN_TRIALS + 1);
      youngGenerationBytes = bytes;
      fitHeapGrowth(SMALL_RUN_TRIALS + 1);
      expect(factor()).toBe(expected);
    }
  });

  it('is left to V8 when no release came first', () => {
    youngGenerationBytes = 1024 * 1024;
    fitHeapGrowth(SMALL_RUN_TRIALS + 1);
    fitHeapGrowth(SMALL_RUN_TRIALS);
    expect(factor()).toBeUndefined();
  });
});

describe('the old generation growth', () => {
  it('is bounded from the start, and given back to V8 once the trials of a small run start', () => {
    const growth = () => flags.filter((flag) => flag.startsWith('--heap-growing'));
    limitHeapGrowth();
    expect(growth()).toEqual(['--heap-growing-percent=50']);
    fitHeapGrowth(SMALL_RUN_TRIALS + 1);
    expect(growth()).toEqual(['--heap-growing-percent=50']);
    fitHeapGrowth(SMALL_RUN_TRIALS);
    expect(growth()).toEqual(['--heap-growing-percent=50', '--heap-growing-percent=0']);
  });
});
