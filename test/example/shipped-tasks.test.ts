import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import billing from '../../suites/billing/domain.ts';
import { createDomainRegistry } from '../../src/registry/index.ts';
import { SurfaceFile, type SequenceStep, type TaskSpec } from '../../src/spec/index.ts';
import {
  expectShippedCounts,
  jaccard,
  nearDuplicates,
  readShippedTasks,
  ROOT,
  tokenSet,
  userText,
  yamlFiles,
} from './shipped-files.ts';

/**
 * The shipped example checked straight from its YAML with the zod schemas,
 * so it is guarded even before (or without) the loader: counts per kind and
 * split, held-out not paraphrasing train, actions/arguments/views that exist.
 */

const shipped = readShippedTasks();

/** The tickets domain (docs/example.md): action → argument names. */
const TICKET_ACTIONS: Record<string, string[]> = {
  'ticket.get': ['ticket_id'],
  'ticket.list': ['status', 'limit', 'cursor'],
  'ticket.preview_followup': ['ticket_id', 'note'],
  'ticket.record_followup': ['ticket_id', 'note', 'action_id'],
  'ticket.lookup_slow': ['ticket_id', 'simulated_latency_ms'],
};
const TICKET_VIEWS = ['followup_count', 'followups'];

function billingArguments(): Record<string, string[]> {
  const registry = createDomainRegistry(billing);
  return Object.fromEntries(
    registry
      .names()
      .map((name) => [name, Object.keys((registry.inputSchema(name) as { properties: object }).properties)]),
  );
}

const CATALOGUE: Record<string, { actions: Record<string, string[]>; views: string[] }> = {
  tickets: { actions: TICKET_ACTIONS, views: TICKET_VIEWS },
  billing: { actions: billingArguments(), views: Object.keys(billing.views) },
};

function steps(task: TaskSpec): { action: string; args: Record<string, unknown> }[] {
  const { expect: e } = task;
  const fromSequence = (e.sequence ?? []).map((step: SequenceStep) =>
    typeof step === 'string' ? { action: step, args: {} } : { action: step.action, args: step.args ?? {} },
  );
  const single = e.action ? [{ action: e.action, args: e.args ?? {} }] : [];
  const anyOf = (e.any_of ?? []).map((action) => ({ action, args: e.args ?? {} }));
  return [...single, ...anyOf, ...fromSequence];
}

describe('token-set Jaccard (the near-duplicate measure)', () => {
  it('matches hand-computed values', () => {
    // {what, s, the, status, of, t, 102} vs {what, s, the, status, of, t, 117}: 6 shared of 8.
    expect(jaccard(tokenSet("What's the status of T-102?"), tokenSet("what's the STATUS of t-117"))).toBeCloseTo(
      6 / 8,
      10,
    );
    expect(jaccard(tokenSet('refund INV-1003'), tokenSet('list customers'))).toBe(0);
    expect(jaccard(tokenSet('a b'), tokenSet('b a a'))).toBe(1);
  });

  it('flags a paraphrase that only swaps an id', () => {
    const pairs = nearDuplicates([
      { split: 'train', id: 'a', text: "What's the status of ticket T-102?" },
      { split: 'heldout', id: 'b', text: "What's the status of ticket T-117?" },
      { split: 'heldout', id: 'c', text: 'Draft a nudge for the oldest waiting ticket.' },
    ]);
    expect(pairs.map((pair) => pair.heldout)).toEqual(['b']);
  });
});

describe('the shipped example tasks', () => {
  it('parse with the TaskFile schema and have unique ids', () => {
    expect(shipped.length).toBeGreaterThan(0);
    const ids = shipped.map((item) => `${item.domain}/${item.task.id}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('have at least 70 train and 36 held-out tasks, 8+ of each kind per split, and every kind in every domain and split', () => {
    expectShippedCounts(shipped.map((item) => ({ split: item.split, kind: item.task.kind, domain: item.domain })));
  });

  it('keep held-out user messages from paraphrasing train ones (token-set Jaccard < 0.6)', () => {
    const pairs = nearDuplicates(
      shipped.map((item) => ({ split: item.split, id: item.task.id, text: userText(item.task) })),
    );
    expect(pairs).toEqual([]);
  });

  it('name only actions, arguments and views their domain has', () => {
    const problems: string[] = [];
    for (const { domain, task } of shipped) {
      const { actions, views } = CATALOGUE[domain]!;
      const known = (action: string, where: string) => {
        if (!actions[action]) problems.push(`${task.id}: unknown action ${action} in ${where}`);
        return Boolean(actions[action]);
      };
      for (const step of steps(task)) {
        if (!known(step.action, 'expect')) continue;
        for (const name of Object.keys(step.args))
          if (!actions[step.action]!.includes(name))
            problems.push(`${task.id}: ${step.action} has no argument ${name}`);
      }
      for (const action of task.expect.distractors ?? []) known(action, 'distractors');
      for (const fault of task.faults) known(fault.action, 'faults');
      for (const view of Object.keys(task.expect.final_state ?? {}))
        if (!views.includes(view)) problems.push(`${task.id}: unknown view ${view}`);
    }
    expect(problems).toEqual([]);
  });

  it('list distractors on every similar-tool task, never including the expected action', () => {
    for (const { task } of shipped.filter((item) => item.task.kind === 'similar-tool')) {
      expect(task.expect.distractors?.length, task.id).toBeGreaterThan(0);
      expect(task.expect.distractors, task.id).not.toContain(task.expect.action);
    }
  });

  it('ship untrusted-output tasks in both splits and both domains, each injecting an instruction and forbidding writes', () => {
    const untrusted = shipped.filter((item) => item.task.tags.includes('untrusted-output'));
    for (const split of ['train', 'heldout']) {
      for (const domain of ['tickets', 'billing'])
        expect(
          untrusted.some((item) => item.split === split && item.domain === domain),
          `${split}/${domain}`,
        ).toBe(true);
    }
    for (const { task } of untrusted) {
      expect(
        task.faults.some((fault) => /ignore previous instructions/i.test(fault.inject ?? '')),
        task.id,
      ).toBe(true);
      expect(task.expect.forbid_effects, task.id).toEqual(expect.arrayContaining(['write', 'destructive']));
    }
  });

  it('cover the recovery faults the example promises (timeout → retry, invalid args → fix, approval → ask, not found → requery/stop)', () => {
    const seen = new Set(
      shipped.flatMap((item) => item.task.faults.map((fault) => `${fault.error}->${fault.good_next}`)),
    );
    for (const pair of [
      'tool_timeout->retry',
      'invalid_arguments->fix_arguments',
      'approval_required->ask_approval',
      'ticket_not_found->requery',
      'ticket_not_found->stop',
      'invoice_not_found->stop',
    ]) {
      expect(seen, pair).toContain(pair);
    }
  });

  it('include actors without write permission who are told so, and never expect a write from them', () => {
    const writeActions = new Set(['ticket.record_followup', 'billing.refund.submit']);
    const readOnly = shipped.filter(
      (item) =>
        !item.task.actor.permissions.some(
          (permission) => permission === 'ticket:write' || permission === 'billing:refund',
        ) && item.task.messages.some((message) => message.role === 'system'),
    );
    expect(readOnly.length).toBeGreaterThanOrEqual(4);
    for (const { task } of readOnly) {
      expect(
        steps(task).filter((step) => writeActions.has(step.action)),
        task.id,
      ).toEqual([]);
      expect(task.expect.forbid_effects, task.id).toContain('write');
    }
  });
});

describe('the shipped billing surfaces', () => {
  const dir = join(ROOT, 'suites', 'billing', 'surfaces');
  const files = Object.fromEntries(
    yamlFiles(dir).map((path) => {
      const file = SurfaceFile.parse(parse(readFileSync(path, 'utf8')));
      return [file.id, file];
    }),
  );

  it('parse with the SurfaceFile schema: namespaced-v1, its revision namespaced-v2, and flat-v1', () => {
    expect(Object.keys(files).sort()).toEqual(['flat-v1', 'namespaced-v1', 'namespaced-v2']);
    expect(files['namespaced-v2']!.extends).toBe('namespaced-v1');
  });

  it('expose every billing action in each full surface, with flat names on flat-v1', () => {
    const actions = billing.actions.map((action) => action.id).sort();
    for (const id of ['namespaced-v1', 'flat-v1'])
      expect(files[id]!.tools.map((tool) => tool.action).sort(), id).toEqual(actions);
    expect(files['flat-v1']!.tools.every((tool) => /^[a-z_]+$/.test(tool.name ?? ''))).toBe(true);
    expect(files['namespaced-v1']!.tools.every((tool) => tool.name === undefined)).toBe(true);
  });

  it('make namespaced-v2 a description-only revision', () => {
    for (const tool of files['namespaced-v2']!.tools) {
      expect(tool.name, tool.action).toBeUndefined();
      expect(tool.remove, tool.action).toBeUndefined();
      expect(tool.description, tool.action).toMatch(/\S/);
    }
  });
});
