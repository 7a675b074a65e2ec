import type { z } from 'zod';
import { RuntimeContract } from '../spec/index.ts';
import type { ActionSpec } from '../spec/index.ts';

/**
 * The runtime contract is declared once, on the action (SPEC §2: an action
 * is the capability; its effect, permission, approval and idempotency key
 * are what scoring judges a write by, whatever tool carried it). A tool that
 * carries out one action takes those four from it and adds only what is the
 * tool's own: `timeout_ms` and `retry`. A tool that carries out no single
 * action (a multiplexed "wide" tool) declares its whole contract itself.
 */
export const POLICY_FIELDS = ['effect', 'permission', 'approval', 'idempotency_key'] as const;
export type PolicyField = (typeof POLICY_FIELDS)[number];

/** What a tool may write under `runtime`: any part of the contract (defaults fill the rest). */
export type ToolRuntime = z.input<typeof RuntimeContract>;

/** The part of a tool the contract is resolved from. */
export interface ContractSource {
  name: string;
  /** The action this tool carries out; defaults to the action whose id is the tool's name. */
  action?: string;
  runtime?: ToolRuntime;
}

/** The action a tool carries out, if any: the one it names, else the one with its name. */
export function actionOf(tool: ContractSource, actions: ReadonlyMap<string, ActionSpec>): ActionSpec | undefined {
  return actions.get(tool.action ?? tool.name);
}

/** A policy field a tool states differently from its action. */
export interface ContractConflict {
  field: PolicyField;
  tool: unknown;
  action: unknown;
}

/** Policy fields the tool states and its action contradicts (stating the same value is harmless). */
export function contractConflicts(tool: ContractSource, action: ActionSpec): ContractConflict[] {
  const conflicts: ContractConflict[] = [];
  for (const field of POLICY_FIELDS) {
    const stated = tool.runtime?.[field];
    if (stated !== undefined && stated !== action[field])
      conflicts.push({ field, tool: stated, action: action[field] });
  }
  return conflicts;
}

/**
 * The contract the registry enforces for a tool: its action's policy, its
 * own timeout and retry, defaults for the rest. Throws on a contradiction
 * (a programming error here; the loader reports it with file and field
 * before a registry is ever built).
 */
export function resolveContract(tool: ContractSource, action: ActionSpec | undefined): RuntimeContract {
  if (!action) return RuntimeContract.parse(tool.runtime ?? {});
  const conflict = contractConflicts(tool, action)[0];
  if (conflict) {
    throw new Error(
      `registry tool "${tool.name}" states runtime.${conflict.field} ${JSON.stringify(conflict.tool)}, but its action "${action.id}" declares ${JSON.stringify(conflict.action)}`,
    );
  }
  return RuntimeContract.parse({
    ...tool.runtime,
    effect: action.effect,
    permission: action.permission,
    approval: action.approval,
    idempotency_key: action.idempotency_key,
  });
}
