import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { approvalFingerprint, createDomainRegistry, MemoryReceiptStore } from '../../src/registry/index.ts';
import { matchConstraint } from '../../src/score/constraint.ts';
import { type Approval, type SideEffect, type Task } from '../../src/spec/index.ts';
import { idealArgs, idealSteps } from './ideal-calls.ts';
import { expectShippedCounts, nearDuplicates, ROOT, userText } from './shipped-files.ts';

/**
 * The shipped example through the real loader: every file validates against
 * its domain, the counts hold, held-out does not paraphrase train, and each
 * task's ideal calls actually run on a fresh backend.
 */

const ticketsPresent = existsSync(join(ROOT, 'suites', 'tickets', 'domain.ts'));

/**
 * Ideal calls whose structured error is the point of the task (the model
 * must notice it and stop); every other ideal call must succeed.
 */
const EXPECTED_ERRORS: Record<string, string> = {
  'billing-unknown-inv1077': 'invoice_not_found',
  'billing-multi-too-much-inv1008': 'refund_exceeds_balance',
  'tickets-unknown-t140': 'ticket_not_found',
  'heldout-tickets-owner-of-t131': 'ticket_not_found',
};

/**
 * Run a task's expected calls (those whose arguments the task pins down) on
 * a fresh state with every permission and approval, faults ignored.
 */
async function runIdeal(loaded: LoadedDomain, task: Task) {
  const { domain } = loaded;
  const registry = createDomainRegistry(domain);
  const state = domain.createState();
  const effects: SideEffect[] = [];
  const approvals: Approval[] = [];
  const permissions = [
    ...new Set(
      domain.tools
        .map((tool) => registry.contract(tool.name)!.permission)
        .filter((permission): permission is string => permission !== null),
    ),
  ];
  const context = {
    state,
    actor: { id: 'ideal', permissions },
    approvals,
    effects,
    receipts: new MemoryReceiptStore(),
  };
  const errors: string[] = [];
  let complete = true;
  for (const [index, step] of idealSteps(task).entries()) {
    const contract = registry.contract(step.action)!;
    const args = idealArgs(step, contract.idempotency_key, index);
    // Arguments the task leaves open (a regex, a cursor) cannot be invented: the run is then partial.
    if (!registry.checkInput(step.action, args).ok) {
      complete = false;
      continue;
    }
    approvals.push({ tool: step.action, fingerprint: approvalFingerprint(args, contract.idempotency_key) });
    const result = await registry.invoke({ tool: step.action, arguments: args }, context);
    if (!result.ok) errors.push(result.error.code);
  }
  const views = Object.fromEntries(Object.entries(domain.views).map(([name, view]) => [name, view(state)]));
  return { errors, complete, views };
}

describe('the shipped example project (real loader)', () => {
  it('loads the billing domain: its surfaces resolve and every task validates against it', async () => {
    const project = await loadProject(ROOT, { domains: ['billing'] });
    const billing = project.domains.find((domain) => domain.name === 'billing')!;
    expect(billing.surfaces.map((surface) => surface.id).sort()).toEqual(['flat-v1', 'namespaced-v1', 'namespaced-v2']);
    const v1 = billing.surfaces.find((surface) => surface.id === 'namespaced-v1')!;
    const v2 = billing.surfaces.find((surface) => surface.id === 'namespaced-v2')!;
    expect(v2.tools.map((tool) => tool.name)).toEqual(v1.tools.map((tool) => tool.name));
    expect(v2.hash).not.toBe(v1.hash);
    expect(billing.tasks.filter((task) => task.split === 'train').length).toBeGreaterThanOrEqual(35);
    expect(billing.tasks.filter((task) => task.split === 'heldout').length).toBeGreaterThanOrEqual(18);
  });

  it('runs each billing task’s ideal calls on a fresh backend and reaches its final state', async () => {
    const project = await loadProject(ROOT, { domains: ['billing'] });
    await checkIdealRuns(project.domains[0]!);
  });

  describe.skipIf(!ticketsPresent)('with the tickets domain (suites/tickets/domain.ts)', () => {
    it('loads both domains with at least 70 train and 36 held-out tasks, 8+ of each kind per split', async () => {
      const project = await loadProject(ROOT);
      expect(project.domains.map((domain) => domain.name).sort()).toEqual(['billing', 'tickets']);
      const tasks = project.domains.flatMap((domain) => domain.tasks);
      expectShippedCounts(tasks);
      expect(nearDuplicates(tasks.map((task) => ({ split: task.split, id: task.id, text: userText(task) })))).toEqual(
        [],
      );
    });

    it('runs each tickets task’s ideal calls on a fresh backend and reaches its final state', async () => {
      const project = await loadProject(ROOT, { domains: ['tickets'] });
      await checkIdealRuns(project.domains[0]!);
    });
  });
});

async function checkIdealRuns(loaded: LoadedDomain): Promise<void> {
  const problems: string[] = [];
  for (const task of loaded.tasks) {
    const { errors, complete, views } = await runIdeal(loaded, task);
    const allowed = EXPECTED_ERRORS[task.id];
    const unexpected = errors.filter((code) => code !== allowed);
    if (unexpected.length > 0) problems.push(`${task.id}: ideal calls failed with ${unexpected.join(', ')}`);
    if (allowed && !errors.includes(allowed)) problems.push(`${task.id}: expected ${allowed} from the ideal calls`);
    // Only a fully pinned-down run can be held to the task's final state.
    if (!complete) continue;
    for (const [view, constraint] of Object.entries(task.expect.final_state ?? {})) {
      if (!matchConstraint(constraint, views[view]))
        problems.push(
          `${task.id}: view ${view} is ${JSON.stringify(views[view])}, task expects ${JSON.stringify(constraint)}`,
        );
    }
  }
  expect(problems).toEqual([]);
}
