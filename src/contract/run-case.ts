import {
  approvalFingerprint,
  createDomainRegistry,
  MemoryReceiptStore,
  withDomainState,
  type Domain,
} from '../registry/index.ts';
import type { ActionSpec, Approval, SideEffect, ToolResult } from '../spec/index.ts';
import type { ContractCall, ContractCase, ContractRuntime, RuntimeName } from './case-file.ts';
import { checkExpectation, type Check } from './checks.ts';

/** One proposal of a case and what the runtime did with it. */
export interface CallOutcome {
  call: ContractCall;
  /** The action the call means (via `actions_by` for a multiplexed tool), if any. */
  action: string | null;
  result: ToolResult;
  /** Writes this call executed, judged: authorized? duplicate? */
  effects: SideEffect[];
}

/** A case replayed through one runtime. */
export interface CaseRun {
  runtime: RuntimeName;
  case: string;
  passed: boolean;
  checks: Check[];
  calls: CallOutcome[];
  side_effects: number;
  /** Writes executed without the permission and the argument-bound approval their action requires. */
  unsafe_side_effects: number;
  /** Writes that repeated an earlier write's change id (idempotency key) in this run. */
  duplicate_side_effects: number;
  /**
   * For a case that expects an error: did the final result carry an
   * actionable one (specific code, category, retryability — not the generic
   * `tool_failed`)? null when the case expects success.
   */
  actionable_error: boolean | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which action a call means, and the action-level arguments. */
function resolveAction(
  call: ContractCall,
  runtime: ContractRuntime,
  actions: ReadonlyMap<string, ActionSpec>,
): { action: string | null; args: unknown } {
  const multiplexed = runtime.actions_by[call.tool];
  if (!multiplexed) return { action: actions.has(call.tool) ? call.tool : null, args: call.arguments };
  if (!isRecord(call.arguments)) return { action: null, args: undefined };
  const selector = call.arguments[multiplexed.field];
  const action = typeof selector === 'string' ? (multiplexed.map[selector] ?? null) : null;
  return { action, args: multiplexed.arguments === undefined ? call.arguments : call.arguments[multiplexed.arguments] };
}

/** An error a caller can act on: anything but the generic `tool_failed`. */
export function isActionableError(result: ToolResult): boolean {
  return (
    !result.ok &&
    result.error.code !== 'tool_failed' &&
    typeof result.error.retryable === 'boolean' &&
    result.error.category.length > 0
  );
}

/**
 * Replay one case's proposals for one runtime on a fresh backend, receipt
 * store and effect log, then judge each executed write by its *action* (so a
 * contract-less tool cannot hide an unauthorized write) and check the case's
 * expectation. Every number comes from this execution.
 */
export async function runCase(
  domain: Domain,
  runtimeName: RuntimeName,
  runtime: ContractRuntime,
  contractCase: ContractCase,
): Promise<CaseRun> {
  return withDomainState(domain, (state) => runCaseOn(domain, state, runtimeName, runtime, contractCase));
}

async function runCaseOn(
  domain: Domain,
  state: unknown,
  runtimeName: RuntimeName,
  runtime: ContractRuntime,
  contractCase: ContractCase,
): Promise<CaseRun> {
  const registry = createDomainRegistry(domain, runtime.tools);
  const actions = new Map(domain.actions.map((action) => [action.id, action]));
  const receipts = new MemoryReceiptStore();
  const effects: SideEffect[] = [];

  // Approvals are given per action; each is translated to the registry tool at call time.
  const approved = new Set(
    contractCase.approvals.map(
      (approval) =>
        `${approval.action}\n${approvalFingerprint(approval.arguments, actions.get(approval.action)?.idempotency_key ?? null)}`,
    ),
  );
  const isApproved = (action: string, args: unknown) =>
    approved.has(`${action}\n${approvalFingerprint(args, actions.get(action)?.idempotency_key ?? null)}`);

  const seenChanges = new Set<string>();
  const calls: CallOutcome[] = [];
  for (const call of contractCase[runtimeName]) {
    const { action, args } = resolveAction(call, runtime, actions);
    const contract = registry.contract(call.tool);
    const approvals: Approval[] =
      contract && action !== null && isApproved(action, args)
        ? [{ tool: call.tool, fingerprint: approvalFingerprint(call.arguments, contract.idempotency_key) }]
        : [];
    const before = effects.length;
    const result = await registry.invoke(
      { tool: call.tool, arguments: call.arguments },
      { state, actor: contractCase.actor, approvals, effects, receipts },
    );
    const judged = effects.slice(before).map((effect) => {
      const spec = actions.get(effect.action);
      const permitted =
        spec !== undefined && (spec.permission === null || contractCase.actor.permissions.includes(spec.permission));
      // The approval must cover this call's own arguments for the effect's action.
      const approvedWrite =
        spec !== undefined &&
        (spec.approval !== 'required' || (action === effect.action && isApproved(effect.action, args)));
      let duplicate = false;
      if (effect.change_id !== null) {
        const identity = `${effect.action}\n${effect.change_id}`;
        duplicate = seenChanges.has(identity);
        seenChanges.add(identity);
      }
      return { ...effect, authorized: permitted && approvedWrite, duplicate };
    });
    calls.push({ call, action, result, effects: judged });
  }

  const written = calls.flatMap((outcome) => outcome.effects);
  const final = calls[calls.length - 1]!.result;
  const checks = checkExpectation(contractCase.expect, {
    final,
    results: calls.map((outcome) => outcome.result),
    sideEffects: written.length,
  });
  return {
    runtime: runtimeName,
    case: contractCase.id,
    passed: checks.every((check) => check.pass),
    checks,
    calls,
    side_effects: written.length,
    unsafe_side_effects: written.filter((effect) => !effect.authorized).length,
    duplicate_side_effects: written.filter((effect) => effect.duplicate).length,
    actionable_error: contractCase.expect.ok ? null : isActionableError(final),
  };
}
