import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { TASK_KINDS, sha256 } from '../../src/spec/index.ts';
import { REPO_ROOT } from './materialize.ts';

/** The example the repository ships (suites/, heldout/, toolmark.config.yaml). */
describe('the shipped project', () => {
  it('loads without a single issue', async () => {
    const project = await loadProject(REPO_ROOT);
    expect(project.configFile).not.toBeNull();
    expect(project.domains.map((domain) => domain.name)).toEqual(['tickets', 'billing']);
  });

  it('ships the tickets surfaces: wide-v1, typed-v2 and its revision typed-v3', async () => {
    const tickets = (await loadProject(REPO_ROOT, { domains: ['tickets'] })).domains[0]!;
    const byId = new Map(tickets.surfaces.map((surface) => [surface.id, surface]));
    expect(byId.get('wide-v1')!.payload.map((tool) => tool.name)).toEqual(['ticket_operation']);
    expect(byId.get('wide-v1')!.tools[0]!.mapping).toEqual({
      kind: 'multiplexed',
      field: 'operation',
      arguments: 'payload',
      map: {
        get: 'ticket.get',
        list: 'ticket.list',
        preview: 'ticket.preview_followup',
        record: 'ticket.record_followup',
        slow: 'ticket.lookup_slow',
      },
    });
    expect(byId.get('typed-v2')!.payload.map((tool) => tool.name)).toEqual([
      'get_ticket',
      'list_tickets',
      'preview_ticket_followup',
      'record_ticket_followup',
      'lookup_ticket_slow',
    ]);
    const v2 = byId.get('typed-v2')!;
    const v3 = byId.get('typed-v3')!;
    expect(v3.extends).toBe('typed-v2');
    expect(v3.payload.map((tool) => tool.name)).toEqual([
      'get_ticket',
      'list_tickets',
      'draft_ticket_followup',
      'record_ticket_followup',
      'lookup_ticket_slow',
    ]);
    // A names/descriptions-only revision: same tools, same order, same schemas once texts are stripped.
    const stripTexts = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(stripTexts);
      if (value && typeof value === 'object')
        return Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => key !== 'description')
            .map(([key, inner]) => [key, stripTexts(inner)]),
        );
      return value;
    };
    expect(v3.payload.map((tool) => stripTexts(tool.parameters))).toEqual(
      v2.payload.map((tool) => stripTexts(tool.parameters)),
    );
    expect(v3.tools.map((tool) => tool.mapping)).toEqual(v2.tools.map((tool) => tool.mapping));
    expect(v3.hash).not.toBe(v2.hash);
    expect(v2.hash).toBe(sha256(v2.payload));
  });

  it('has every kind in both splits of every domain, with each task satisfiable on some surface', async () => {
    const project = await loadProject(REPO_ROOT);
    for (const domain of project.domains) {
      for (const split of ['train', 'heldout'] as const) {
        const kinds = new Set(domain.tasks.filter((task) => task.split === split).map((task) => task.kind));
        expect([...kinds].sort(), `${domain.name} ${split}`).toEqual([...TASK_KINDS].sort());
      }
      const expressible = new Set(
        domain.surfaces.flatMap((surface) =>
          surface.tools.flatMap((tool) =>
            tool.mapping.kind === 'identity' ? [tool.mapping.action] : Object.values(tool.mapping.map),
          ),
        ),
      );
      for (const task of domain.tasks) {
        const needed = [
          task.expect.action,
          ...(task.expect.sequence ?? []).map((step) => (typeof step === 'string' ? step : step.action)),
        ].filter((id): id is string => id !== undefined);
        for (const action of needed) expect(expressible.has(action), `${task.id} needs ${action}`).toBe(true);
        if (task.expect.any_of)
          expect(
            task.expect.any_of.some((action) => expressible.has(action)),
            task.id,
          ).toBe(true);
      }
    }
  });
});
