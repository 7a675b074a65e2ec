import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TaskTallies } from '../../src/aggregate/task-tallies.ts';

/** What the tallies stood for before (a Map keyed by `domain + "\0" + task`, sorted by key). */
function reference(trials: readonly { domain: string; task: string; success: boolean }[]) {
  const byKey = new Map<string, { n: number; c: number }>();
  for (const { domain, task, success } of trials) {
    const key = `${domain}\u0000${task}`;
    const tally = byKey.get(key) ?? { n: 0, c: 0 };
    tally.n += 1;
    if (success) tally.c += 1;
    byKey.set(key, tally);
  }
  return [...byKey.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, t]) => t);
}

function tallied(trials: readonly { domain: string; task: string; success: boolean }[]) {
  const tallies = new TaskTallies();
  for (const { domain, task, success } of trials) tallies.add(domain, task, success);
  return tallies.sorted();
}

describe('TaskTallies', () => {
  it('merges the trials of a task that come back later, and sorts by domain, then task', () => {
    const trials = [
      { domain: 'desk', task: 'b', success: true },
      { domain: 'desk', task: 'b', success: false },
      { domain: 'desk', task: 'a', success: true },
      { domain: 'desk', task: 'b', success: true },
      { domain: 'billing', task: 'z', success: false },
    ];
    expect(tallied(trials)).toEqual([
      { n: 1, c: 0 },
      { n: 1, c: 1 },
      { n: 3, c: 2 },
    ]);
    expect(tallied(trials)).toEqual(reference(trials));
  });

  it('orders as the joined keys do, a domain that is a prefix of another included', () => {
    const trials = ['a-b', 'ab', 'a', 'a\u0000x', 'b'].flatMap((domain, index) => [
      { domain, task: `t${index}`, success: index % 2 === 0 },
      { domain, task: '', success: true },
    ]);
    expect(tallied(trials)).toEqual(reference(trials));
  });

  it('of several tallies together, counts each task once, summed over the tallies it is in', () => {
    const name = fc.constantFrom('', 'a', 'ab', 'a\u0000', 'b', 'ticket');
    fc.assert(
      fc.property(
        fc.array(fc.record({ domain: name, task: name, success: fc.boolean(), cell: fc.nat(2) }), { maxLength: 60 }),
        (trials) => {
          const cells = [new TaskTallies(), new TaskTallies(), new TaskTallies()];
          for (const { domain, task, success, cell } of trials) cells[cell]!.add(domain, task, success);
          expect(TaskTallies.sortedOf(cells)).toEqual(reference(trials));
          expect(TaskTallies.sortedOf([cells[0]!])).toEqual(reference(trials.filter(({ cell }) => cell === 0)));
        },
      ),
    );
  });

  it('agrees with the keyed map on any stream of trials', () => {
    const name = fc.constantFrom('', 'a', 'ab', 'a\u0000', 'b', 'é', 'ticket');
    fc.assert(
      fc.property(
        fc.array(fc.record({ domain: name, task: name, success: fc.boolean() }), { maxLength: 60 }),
        (trials) => {
          expect(tallied(trials)).toEqual(reference(trials));
        },
      ),
    );
  });
});
