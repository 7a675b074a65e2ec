import type { MemoryReceiptStore } from '../registry/index.ts';
import type { Registry } from '../registry/index.ts';
import type { Domain } from '../registry/domain.ts';
import { DEFAULT_MAX_TOOL_OUTPUT_BYTES, toolError } from '../spec/index.ts';
import type { CallRecord, ResolvedSurface, SideEffect, ToolCallProposal, ToolResult } from '../spec/index.ts';
import { ApprovalLedger } from './approvals.ts';
import { FaultSchedule, faultError, injectIntoOutput } from './faults.ts';
import { normalToolError } from './normalize.ts';
import { routeProposal } from './routing.ts';
import { judgeEffects } from './side-effects.ts';
import { limitToolOutput, resultContent } from './tool-output-limit.ts';
import type { TrialInput, TrialState } from './trial.ts';

// One proposed tool call of a trial: checked against the surface, routed,
// run through the registry (faults, approvals, output limit), judged for
// effects, and written as one call record. Split out of trial.ts, which keeps
// the turn loop.

/** What executing a call needs from its trial. */
export interface CallContext extends Omit<TrialInput, 'registry' | 'trial'> {
  trialNumber: number;
  /** The trial's input: names the trial if its user code blocks the run (InvokeContext.owner). */
  owner: unknown;
  registry: Registry<unknown>;
  state: unknown;
  receipts: MemoryReceiptStore;
  actions: ReadonlyMap<string, Domain['actions'][number]>;
  approvals: ApprovalLedger;
  faults: FaultSchedule;
  trial: TrialState;
}

/** A call record with its fields in schema order (the unset ones at their defaults). */
function callRecord(
  base: Pick<CallRecord, 'turn' | 'proposal' | 'parsed' | 'routing'>,
  fields: Pick<CallRecord, 'schema_valid' | 'outcome'> & Partial<Pick<CallRecord, 'fault' | 'approved' | 'latency_ms'>>,
): CallRecord {
  return {
    turn: base.turn,
    proposal: base.proposal,
    parsed: base.parsed,
    routing: base.routing,
    schema_valid: fields.schema_valid,
    outcome: fields.outcome,
    fault: fields.fault ?? null,
    approved: fields.approved ?? false,
    latency_ms: fields.latency_ms ?? 0,
  };
}

/** Routing and the input-schema check of a proposal, as the graders read them. */
function checkProposal(
  proposal: ToolCallProposal,
  surface: ResolvedSurface,
  registry: Registry<unknown>,
  owner?: unknown,
) {
  const routed = routeProposal(proposal, surface);
  const schemaValid =
    routed.exposed && routed.callArgs && registry.has(routed.exposed.tool)
      ? registry.checkInput(routed.exposed.tool, routed.callArgs, owner).ok
      : null;
  return { routed, schemaValid };
}

/**
 * A proposal made once the trial had reached `max_calls`: routed and
 * schema-checked like any other (so it is scored), never invoked, marked
 * `not_executed`. The model never sees its outcome.
 */
export function notExecuted(
  proposal: ToolCallProposal,
  turn: number,
  surface: ResolvedSurface,
  registry: Registry<unknown>,
  maxCalls: number,
): CallRecord {
  const { routed, schemaValid } = checkProposal(proposal, surface, registry);
  const error = {
    code: 'not_executed',
    category: 'policy' as const,
    message: `not executed: the trial had reached max_calls (${maxCalls})`,
    retryable: false,
    details: { reason: 'max_calls' },
  };
  return {
    ...callRecord(
      { turn, proposal, parsed: routed.parsed, routing: routed.routing },
      { schema_valid: routed.parsed ? schemaValid : false, outcome: { ok: false, error } },
    ),
    not_executed: 'max_calls',
  };
}

/** A call record and the text the model is sent as its result (the JSON of its output or error). */
export interface ExecutedCall {
  call: CallRecord;
  content: string;
}

/** A call that never reached the registry, with its result's text. */
function unexecuted(call: CallRecord): ExecutedCall {
  return { call, content: resultContent(call.outcome) };
}

/** Route, apply faults and approvals, invoke, and judge the effects of one proposal. */
export async function executeProposal(
  proposal: ToolCallProposal,
  turn: number,
  context: CallContext,
): Promise<ExecutedCall> {
  const { routed, schemaValid } = checkProposal(proposal, context.surface, context.registry, context.owner);
  const base = { turn, proposal, parsed: routed.parsed, routing: routed.routing };
  if (routed.error || routed.routing.kind !== 'resolved' || !routed.callArgs) {
    return unexecuted(
      callRecord(base, {
        schema_valid: routed.parsed ? schemaValid : false,
        outcome: { ok: false, error: normalToolError(routed.error!) },
      }),
    );
  }
  const { tool, action, args: actionArgs } = routed.routing;
  const approved = context.approvals.isApproved(action, actionArgs);
  const fault = context.faults.next(action);
  if (fault && fault.error !== undefined) {
    return unexecuted(
      callRecord(base, {
        schema_valid: schemaValid,
        approved,
        fault: { error: fault.error, inject: false, good_next: fault.good_next ?? null },
        outcome: { ok: false, error: faultError(fault, context.domain.errors) },
      }),
    );
  }
  const contract = context.registry.contract(tool);
  const effects: SideEffect[] = [];
  const started = performance.now();
  const simulatedTime = context.toolTime === 'simulated' ? { elapsedMs: 0 } : undefined;
  let result: ToolResult;
  try {
    result = await context.registry.invoke(
      { tool, arguments: routed.callArgs, call_id: proposal.id },
      {
        state: context.state,
        actor: context.task.actor,
        approvals: context.approvals.forCall({
          tool,
          idempotencyKey: contract?.idempotency_key ?? null,
          callArgs: routed.callArgs,
          action,
          actionArgs,
        }),
        effects,
        receipts: context.receipts,
        signal: context.signal,
        simulatedTime,
        owner: context.owner,
        // checkProposal validated these arguments just now (schema_valid): the registry reuses it.
        inputChecked: true,
      },
    );
  } catch (caught) {
    // The registry promises not to throw; if it does, the trial still goes on.
    result = {
      ok: false,
      error: toolError(
        'handler_exception',
        `registry failed: ${caught instanceof Error ? caught.message : String(caught)}`,
      ),
    };
  }
  const latency = simulatedTime ? simulatedTime.elapsedMs : performance.now() - started;
  // Most calls write nothing: then there is nothing to judge (and no judging context to make).
  if (effects.length > 0)
    context.trial.effects.push(
      ...judgeEffects(effects, {
        actor: context.task.actor,
        actions: context.actions,
        isApproved: (effectAction) => context.approvals.isApproved(effectAction, actionArgs),
        seen: context.trial.seenChanges,
      }),
    );
  if (result.ok) context.approvals.noteSuccess(action, actionArgs);
  const injected = fault?.inject !== undefined && result.ok;
  const full = result.ok
    ? {
        ok: true as const,
        output: injected ? injectIntoOutput(result.output, fault!.inject!) : result.output,
        replayed: result.replayed ?? false,
      }
    : { ok: false as const, error: normalToolError(result.error) };
  const { outcome, truncated, json } = limitToolOutput(
    full,
    context.maxToolOutputBytes ?? DEFAULT_MAX_TOOL_OUTPUT_BYTES,
  );
  const record = callRecord(base, {
    schema_valid: schemaValid,
    outcome,
    fault: injected ? { error: null, inject: true, good_next: fault!.good_next ?? null } : null,
    approved,
    latency_ms: latency,
  });
  return {
    call: truncated ? { ...record, output_truncated: truncated } : record,
    content: json ?? resultContent(outcome),
  };
}
