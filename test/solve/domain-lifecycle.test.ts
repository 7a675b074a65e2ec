import { describe, expect, it } from 'vitest';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { LiveStates, withDomainState, type Domain } from '../../src/registry/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import { ProviderError } from '../../src/spec/index.ts';
import { makeTask, notesDomain, typedSurface, type NotesState } from './fixtures/notes-domain.ts';

/**
 * Async `createState` and `teardown` (servers, temp folders): the state is
 * made before the first turn and torn down after every trial — one that
 * answered, one whose provider failed, one cut short by a run quitting.
 */

interface Backend {
  log: string[];
}

/** The notes domain with an async createState that logs, and a teardown that logs (and may be made to throw). */
function lifecycleDomain(
  backend: Backend,
  options: { failSetup?: boolean; failTeardown?: boolean } = {},
): Domain<NotesState> {
  let made = 0;
  return {
    ...notesDomain,
    async createState() {
      await new Promise((resolve) => setImmediate(resolve));
      if (options.failSetup) throw new Error('port 7777 is taken');
      made += 1;
      backend.log.push(`create ${made}`);
      return notesDomain.createState();
    },
    async teardown(state) {
      await new Promise((resolve) => setImmediate(resolve));
      backend.log.push(`teardown (${Object.keys(state.notes).length} notes)`);
      if (options.failTeardown) throw new Error('server would not stop');
    },
  };
}

const task = makeTask({
  id: 'get-n1',
  kind: 'must-call',
  messages: [{ role: 'user', content: 'Read N-1' }],
  actor: { permissions: ['note:read'] },
  expect: { action: 'note.get', args: { note_id: 'N-1' } },
});

describe('domain state lifecycle', () => {
  it('awaits an async createState and tears the state down after the trial, views read before', async () => {
    const backend: Backend = { log: [] };
    const provider = new ScriptedProvider([callTurn('get_note', { note_id: 'N-1' }), textTurn('done')]);
    const record = await runTrial({
      provider,
      domain: lifecycleDomain(backend),
      surface: typedSurface,
      task,
      trial: 0,
    });
    expect(record.status).toBe('completed');
    expect(record.calls[0]!.outcome.ok).toBe(true);
    expect(Object.keys(record.final_state).length).toBeGreaterThan(0);
    expect(backend.log).toEqual(['create 1', expect.stringMatching(/^teardown/)]);
  });

  it('tears down after a trial whose provider failed', async () => {
    const backend: Backend = { log: [] };
    const provider = new ScriptedProvider(() =>
      Promise.reject(new ProviderError('503 from upstream', { status: 503, retryable: true })),
    );
    const record = await runTrial({
      provider,
      domain: lifecycleDomain(backend),
      surface: typedSurface,
      task,
      trial: 0,
    });
    expect(record).toMatchObject({ status: 'errored', error: { status: 503, message: '503 from upstream' } });
    expect(backend.log).toEqual(['create 1', expect.stringMatching(/^teardown/)]);
  });

  it('a createState that fails makes an errored trial, asks the model nothing, and tears nothing down', async () => {
    const backend: Backend = { log: [] };
    const provider = new ScriptedProvider([textTurn('never asked')]);
    const record = await runTrial({
      provider,
      domain: lifecycleDomain(backend, { failSetup: true }),
      surface: typedSurface,
      task,
      trial: 0,
    });
    expect(record).toMatchObject({
      status: 'errored',
      stop_reason: 'errored',
      error: { status: null, message: "the domain's createState failed: port 7777 is taken", retryable: false },
      turns: [],
      final_state: {},
    });
    expect(provider.requests).toHaveLength(0);
    expect(backend.log).toEqual([]);
  });

  it('a teardown that throws is reported and does not change the trial', async () => {
    const backend: Backend = { log: [] };
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const provider = new ScriptedProvider([textTurn('hello')]);
      const record = await runTrial({
        provider,
        domain: lifecycleDomain(backend, { failTeardown: true }),
        surface: typedSurface,
        task,
        trial: 0,
      });
      expect(record.status).toBe('completed');
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual(['teardown of domain "notes" failed: server would not stop']);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a run quitting at once drains the states of trials still in flight, each torn down once', async () => {
    const backend: Backend = { log: [] };
    const live = new LiveStates();
    let answer!: () => void;
    const asked = new Promise<void>((resolve) => {
      // The provider holds the trial in flight until the test lets it go.
      answer = resolve;
    });
    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const provider = new ScriptedProvider(async () => {
      inFlight();
      await asked;
      return textTurn('late');
    });
    const trial = runTrial({ provider, domain: lifecycleDomain(backend), surface: typedSurface, task, trial: 0, live });
    await started;
    expect(live.size).toBe(1);
    await live.drain();
    expect(backend.log).toEqual(['create 1', expect.stringMatching(/^teardown/)]);
    answer();
    await trial;
    // The trial's own end does not tear down a second time.
    expect(backend.log).toHaveLength(2);
    expect(live.size).toBe(0);
  });

  it('withDomainState (contract cases) tears down when the work throws', async () => {
    const backend: Backend = { log: [] };
    await expect(
      withDomainState(lifecycleDomain(backend), () => Promise.reject(new Error('case failed'))),
    ).rejects.toThrow('case failed');
    expect(backend.log).toEqual(['create 1', expect.stringMatching(/^teardown/)]);
  });
});
