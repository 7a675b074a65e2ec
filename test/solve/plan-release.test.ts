import { describe, expect, it } from 'vitest';
import { planTrials, preflight } from '../../src/solve/index.ts';
import { releasePlannedTask, withTaskCopies } from '../../src/solve/plan.ts';
import type { ModelRequest, Provider, TurnKey } from '../../src/spec/index.ts';
import { makeTask, notesRunDomain } from './fixtures/notes-domain.ts';

// A run's plan holds each task only until the task's trials are written
// (releasePlannedTask), and a large run's pre-flight reads the plan with
// copies of its tasks (withTaskCopies): both exist so that a 100,000-task
// run does not keep every task, and what was made of it, to its end
// (src/run/run-project.ts). Neither may change what a trial sees.

const tasks = [
  makeTask({
    id: 'read-1',
    kind: 'must-call',
    messages: [{ role: 'user', content: 'Read N-1' }],
    expect: { action: 'note.get' },
  }),
  makeTask({
    id: 'read-2',
    kind: 'must-call',
    messages: [{ role: 'user', content: 'Read N-2' }],
    expect: { action: 'note.get' },
  }),
];

/** A provider whose pre-flight check records what it was asked, and refuses one task. */
function checkingProvider(refuse: string) {
  const asked: { request: ModelRequest; key: TurnKey }[] = [];
  const provider: Provider = {
    id: 'fake',
    model: 'm',
    offline: true,
    propose: () => Promise.reject(new Error('not called by a pre-flight')),
    check(request, key) {
      asked.push({ request, key });
      return key.task === refuse ? { kind: 'missing', message: `no turn for ${key.task} trial ${key.trial}` } : null;
    },
  };
  return { provider, asked };
}

function plan(provider: Provider, trials = 2) {
  return planTrials([notesRunDomain(tasks)], [provider], { split: 'all', trials });
}

describe('releasePlannedTask', () => {
  it('lets go of one trial’s task: its identity stays, reading the task is an error, the task’s other trials keep it', () => {
    const planned = plan(checkingProvider('none').provider);
    const [first, second] = planned;
    const identity = first!.identity;
    expect(second!.task).toBe(first!.task);
    releasePlannedTask(first!);
    expect(first!.identity).toBe(identity);
    expect(() => first!.task).toThrow(/its task was released after the trial/);
    expect(second!.task.id).toBe('read-1');
  });

  it('leaves a planned trial it did not make as it is', () => {
    const [planned] = plan(checkingProvider('none').provider);
    const copy = { ...planned!, task: planned!.task, identity: planned!.identity };
    releasePlannedTask(copy);
    expect(copy.task.id).toBe('read-1');
  });
});

describe('withTaskCopies', () => {
  it('yields the same trials with equal copies of their tasks, one copy per run of a task’s trials, the plan untouched', () => {
    const planned = plan(checkingProvider('none').provider, 3);
    const originals = planned.map((trial) => trial.task);
    const copies = [...withTaskCopies(planned)];
    expect(copies.map((trial) => trial.identity)).toEqual(planned.map((trial) => trial.identity));
    expect(copies.map((trial) => [trial.provider, trial.domain, trial.surface, trial.trial])).toEqual(
      planned.map((trial) => [trial.provider, trial.domain, trial.surface, trial.trial]),
    );
    copies.forEach((trial, index) => {
      expect(trial.task).toEqual(originals[index]);
      expect(trial.task).not.toBe(originals[index]);
    });
    // The three trials of read-1 on the first surface share one copy; the next task gets its own.
    expect(copies[1]!.task).toBe(copies[0]!.task);
    expect(copies[2]!.task).toBe(copies[0]!.task);
    expect(copies[3]!.task).not.toBe(copies[0]!.task);
    expect(planned.map((trial) => trial.task)).toEqual(originals);
    planned.forEach((trial, index) => expect(trial.task).toBe(originals[index]));
  });

  it('gives the pre-flight the same requests and keys, and the same refusal', () => {
    const direct = checkingProvider('read-2');
    const copied = checkingProvider('read-2');
    const error = (run: () => void) => {
      try {
        run();
      } catch (caught) {
        return (caught as Error).message;
      }
      return null;
    };
    const directError = error(() => preflight(plan(direct.provider)));
    const copiedError = error(() => preflight(withTaskCopies(plan(copied.provider)), { askedOnce: true }));
    expect(directError).toMatch(/no turn for read-2 trial 0/);
    expect(copiedError).toBe(directError);
    expect(copied.asked).toEqual(direct.asked);
    expect(copied.asked.length).toBe(2 * 2 * 2);
  });
});
