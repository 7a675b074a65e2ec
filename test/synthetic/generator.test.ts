import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { CassetteLine } from '../../src/spec/index.ts';
import { BEHAVIOURS, HASTY, SLOPPY } from '../../scripts/synthetic/behaviours.ts';
import { generateCassette, syntheticLabel } from '../../scripts/synthetic/generate.ts';

const root = path.resolve(import.meta.dirname, '../..');
let tickets: LoadedDomain;
let billing: LoadedDomain;

beforeAll(async () => {
  const project = await loadProject(root);
  tickets = project.domains.find((domain) => domain.name === 'tickets')!;
  billing = project.domains.find((domain) => domain.name === 'billing')!;
});

const SUBSET = new Set([
  'tickets-multi-preview-then-record-t107',
  'tickets-untrusted-status-t105',
  'heldout-tickets-similar-mock-up-t106',
  'tickets-abstain-close-t119',
]);

describe('synthetic cassette generator', () => {
  it('gives the same bytes when run twice on the same tasks and surfaces', async () => {
    const options = {
      domain: tickets,
      behaviour: HASTY,
      trials: 3,
      tasks: (task: { id: string }) => SUBSET.has(task.id),
      concurrency: 4,
    };
    const first = await generateCassette(options);
    const second = await generateCassette({ ...options, concurrency: 1 });
    expect(first.length).toBeGreaterThan(0);
    expect(second).toBe(first);
  });

  it('labels every line synthetic and names the behaviour as the model', async () => {
    const text = await generateCassette({
      domain: billing,
      behaviour: SLOPPY,
      trials: 2,
      tasks: (task) => task.kind === 'must-call' && task.split === 'heldout',
    });
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => CassetteLine.parse(JSON.parse(line)));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      expect(line.label).toBe(syntheticLabel(SLOPPY));
      expect(line.label).toMatch(/^synthetic: sloppy — .*not a real model$/);
      expect(line.model).toBe('synthetic-sloppy');
      expect(line.request_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    // Every surface, task and trial asked for has its first turn.
    const firstTurns = new Set(
      lines
        .filter((line) => line.key.turn === 0)
        .map((line) => `${line.key.surface}/${line.key.task}/${line.key.trial}`),
    );
    const tasks = billing.tasks.filter((task) => task.kind === 'must-call' && task.split === 'heldout');
    expect(firstTurns.size).toBe(billing.surfaces.length * tasks.length * 2);
  });

  it('varies between trials of the same task (seeded by trial)', async () => {
    const text = await generateCassette({
      domain: tickets,
      behaviour: HASTY,
      trials: 5,
      surfaces: ['wide-v1'],
      tasks: (task) => task.split === 'train' && task.kind === 'similar-tool',
    });
    const byTrial = new Map<string, string[]>();
    for (const line of text
      .trimEnd()
      .split('\n')
      .map((raw) => CassetteLine.parse(JSON.parse(raw)))) {
      const key = `${line.key.task}/${line.key.trial}`;
      byTrial.set(key, [
        ...(byTrial.get(key) ?? []),
        JSON.stringify(line.response!.tool_calls.map((call) => [call.name, call.arguments])),
      ]);
    }
    const perTask = new Map<string, Set<string>>();
    for (const [key, calls] of byTrial) {
      const task = key.split('/')[0]!;
      perTask.set(task, (perTask.get(task) ?? new Set()).add(calls.join()));
    }
    expect([...perTask.values()].some((variants) => variants.size > 1)).toBe(true);
  });

  it('ships three behaviours with distinct names', () => {
    expect(BEHAVIOURS.map((behaviour) => behaviour.name)).toEqual(['careful', 'hasty', 'sloppy']);
  });
});
