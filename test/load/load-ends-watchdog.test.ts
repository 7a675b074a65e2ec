import { describe, expect, it, vi } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { BASE_PROJECT } from './materialize.ts';

// loadProject ends the user-code watchdog itself once the domain modules are
// imported (src/load/index.ts calls endWatchdog), so the worker's teardown
// overlaps the rest of the load. Without that call the worker would still be
// ended, but later, by its idle timer: the two are told apart by the stack of
// the terminate call (a timer's callback runs from node's timer list, never
// from inside loadProject).

const workers: { terminatedBy: string | null }[] = [];

vi.mock('node:worker_threads', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:worker_threads')>()),
  Worker: class {
    state = { terminatedBy: null as string | null };
    constructor() {
      workers.push(this.state);
    }
    unref() {}
    postMessage() {}
    terminate() {
      this.state.terminatedBy = new Error('terminate').stack ?? '';
      return Promise.resolve(0);
    }
  },
}));

describe('loadProject and the user-code watchdog', () => {
  it('ends the watchdog worker from inside the load, not by its idle timer', async () => {
    const project = await loadProject(BASE_PROJECT);
    expect(project.domains.map((domain) => domain.name)).toEqual(['notes']);
    // The base project's domain is a domain.ts: importing it and creating its states armed the watchdog.
    expect(workers).toHaveLength(1);
    const stack = workers[0]!.terminatedBy;
    expect(stack).not.toBeNull();
    expect(stack).toContain('endWatchdog');
    expect(stack).toContain('loadProject');
    expect(stack).not.toContain('listOnTimeout');
  });
});
