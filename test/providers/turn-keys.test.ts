import { describe, expect, it } from 'vitest';
import { TurnKeys, type TurnKeyFields } from '../../providers/replay/turn-keys.ts';

// The replay index's key table (typed arrays, open addressing) against a Map
// of JSON keys, the way the index found keys before.

const json = (key: TurnKeyFields) => JSON.stringify([key.domain, key.task, key.surface, key.trial, key.turn]);

describe('turn keys', () => {
  it('finds what a Map of the same keys finds, through many growths; a key added again keeps its slot', () => {
    const keys = new TurnKeys();
    const reference = new Map<string, number>();
    const tasks = ['t', 'tä', 'τ-1', '', 'a'.repeat(300), '"quoted"', 'x\u0000y', '😀'];
    let added = 0;
    for (let index = 0; index < 20_000; index += 1) {
      const key: TurnKeyFields = {
        domain: index % 7 === 0 ? 'other' : 'desk',
        surface: `s${index % 3}`,
        task: `${tasks[index % tasks.length]}-${index % 5000}`,
        trial: index % 11 === 0 ? '*' : index % 4,
        turn: index % 6,
      };
      const slot = keys.slotOf(key);
      const known = reference.get(json(key));
      if (known === undefined) {
        expect(slot).toBe(added++);
        reference.set(json(key), slot);
      } else expect(slot).toBe(known);
      expect(keys.size).toBe(added);
    }
    expect(keys.size).toBe(reference.size);
    for (const [text, slot] of reference) {
      const [domain, task, surface, trial, turn] = JSON.parse(text) as [string, string, string, number | '*', number];
      expect(keys.find({ domain, task, surface, trial, turn })).toBe(slot);
    }
  });

  it('an exact trial wins over `*`, which answers any other trial; nothing else matches', () => {
    const keys = new TurnKeys();
    const key = { domain: 'd', task: 'read-1', surface: 's', turn: 0 };
    const any = keys.slotOf({ ...key, trial: '*' });
    const second = keys.slotOf({ ...key, trial: 2 });
    const huge = keys.slotOf({ ...key, trial: 2 ** 40 + 2 });
    expect(keys.find({ ...key, trial: 2 })).toBe(second);
    expect(keys.find({ ...key, trial: 2 ** 40 + 2 })).toBe(huge);
    expect(keys.find({ ...key, trial: 0 })).toBe(any);
    expect(keys.find({ ...key, trial: '*' })).toBe(any);
    for (const other of [
      { ...key, trial: 0, turn: 1 },
      { ...key, trial: 0, task: 'read-2' },
      { ...key, trial: 0, task: 'read-' },
      { ...key, trial: 0, surface: 't' },
      { ...key, trial: 0, domain: 'e' },
      // The same characters split differently between the fields.
      { ...key, trial: 0, domain: 'ds', surface: '' },
    ])
      expect(keys.find(other)).toBeUndefined();
  });
});
