import { describe, expect, it, vi } from 'vitest';
import { endWatchdog, guardUserCode } from '../../src/load/user-code-guard.ts';

// The watchdog worker of user code at load time is shared by the guarded
// calls of one load (two per TypeScript domain), and ended once idle; each
// call still arms its own time limit in it and disarms it when done.

const workers: { messages: unknown[]; terminated: boolean }[] = [];

vi.mock('node:worker_threads', () => ({
  Worker: class {
    state = { messages: [] as unknown[], terminated: false };
    constructor() {
      workers.push(this.state);
    }
    unref() {}
    postMessage(message: unknown) {
      this.state.messages.push(message);
    }
    terminate() {
      this.state.terminated = true;
      return Promise.resolve(0);
    }
  },
}));

describe('the load-time user code watchdog', () => {
  it('is one worker for calls in a row, each armed and disarmed, ended once idle', async () => {
    expect(await guardUserCode('importing', 'a.ts', async () => 1)).toBe(1);
    expect(await guardUserCode('calling createState twice', 'a.ts', async () => 2)).toBe(2);
    await expect(guardUserCode('importing', 'b.ts', async () => Promise.reject(new Error('bad')))).rejects.toThrow(
      'bad',
    );
    expect(workers).toHaveLength(1);
    const [first, second, third] = workers[0]!.messages.filter((message) => 'message' in (message as object)) as {
      id: number;
      message: string;
    }[];
    expect(first!.message).toContain('a.ts: importing did not finish within');
    expect(second!.message).toContain('a.ts: calling createState twice did not finish within');
    expect(third!.message).toContain('b.ts: importing');
    // Every armed timer was disarmed.
    expect(workers[0]!.messages.filter((message) => !('message' in (message as object)))).toEqual([
      { id: first!.id },
      { id: second!.id },
      { id: third!.id },
    ]);
    await vi.waitFor(() => expect(workers[0]!.terminated).toBe(true));
    await guardUserCode('importing', 'c.ts', async () => 3);
    expect(workers).toHaveLength(2);
  });

  it('is ended at once by endWatchdog when no call is running, not while one is', async () => {
    await vi.waitFor(() => expect(workers.at(-1)!.terminated).toBe(true));
    let release!: () => void;
    const running = guardUserCode('importing', 'd.ts', () => new Promise<void>((resolve) => (release = resolve)));
    const worker = workers.at(-1)!;
    expect(worker.terminated).toBe(false);
    endWatchdog(); // a call is armed: the worker stays
    expect(worker.terminated).toBe(false);
    release();
    await running;
    endWatchdog(); // idle now: ended without waiting for the idle timer
    expect(worker.terminated).toBe(true);
    await guardUserCode('importing', 'e.ts', async () => 5);
    expect(workers.at(-1)).not.toBe(worker);
  });
});
