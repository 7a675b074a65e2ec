import { describe, expect, it } from 'vitest';
import { describePlan } from '../../src/run/manifest.ts';
import type { PlannedTrial } from '../../src/solve/index.ts';

type Fake = {
  domain: { name: string };
  surface: { id: string; hash: string };
  task: { id: string; kind: string; split: string };
};

/** The manifest's lists as written before: one map per list, keyed by `domain/id`, the last trial's entry in the first one's place. */
function reference(plan: readonly Fake[]) {
  const surfaces = new Map<string, unknown>();
  const tasks = new Map<string, unknown>();
  for (const { domain, surface, task } of plan) {
    const key = `${domain.name}/${surface.id}`;
    if (!surfaces.has(key))
      surfaces.set(key, {
        domain: domain.name,
        id: surface.id,
        hash: surface.hash,
        schema_tokens: surface.id.length,
        schema_bytes: 7,
      });
    tasks.set(`${domain.name}/${task.id}`, { domain: domain.name, id: task.id, kind: task.kind, split: task.split });
  }
  return { surfaces: [...surfaces.values()], tasks: [...tasks.values()] };
}

describe('describePlan', () => {
  it('lists each surface and task once, in the order first planned, whatever the order of the trials', () => {
    const domains = [{ name: 'desk' }, { name: 'shop' }];
    const surfaces = [
      { id: 'flat', hash: 'h1' },
      { id: 'typed', hash: 'h2' },
    ];
    const tasks = ['t1', 't2', 't3'].map((id, index) => ({
      id,
      kind: 'must-call',
      split: index === 2 ? 'heldout' : 'train',
    }));
    const plan: Fake[] = [];
    // Two providers × domains × surfaces × tasks × two trials, as planTrials lists them; then a task again out of order.
    for (let provider = 0; provider < 2; provider++)
      for (const domain of domains)
        for (const surface of surfaces)
          for (const task of tasks) for (let trial = 0; trial < 2; trial++) plan.push({ domain, surface, task });
    plan.push({ domain: domains[0]!, surface: surfaces[1]!, task: tasks[0]! });
    const costs = new Map(
      plan.map(({ domain, surface }) => [
        `${domain.name}\n${surface.id}\n${surface.hash}`,
        { tokens: surface.id.length, bytes: 7 },
      ]),
    );
    const described = describePlan(plan as unknown as PlannedTrial[], costs as never);
    expect(described).toEqual(reference(plan));
    expect(described.tasks).toHaveLength(6);
    expect(described.surfaces).toHaveLength(4);
  });
});
