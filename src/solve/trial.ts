import { isPromise, MemoryReceiptStore, createDomainRegistry, teardownOf, type LiveStates } from '../registry/index.ts';
import type { Registry } from '../registry/index.ts';
import type { Domain } from '../registry/domain.ts';
import { schemaCost } from '../cost/schema-cost.ts';
import { ProviderError, TrialRecord, isTrialRecordShape, requestHash, toolError } from '../spec/index.ts';
import type { CallRecord, Json, ModelMessage, ModelSettings, ModelTurn, Provider, RequestSummary, ResolvedSurface, SideEffect, Task, ToolCallProposal, ToolResult } from '../spec/index.ts';
import { ApprovalLedger } from './approvals.ts';
import { FaultSchedule, faultError, injectIntoOutput } from './faults.ts';
import { normalToolError, normalTurn } from './normalize.ts';
import { buildRequest, initialMessages } from './request.ts';
import { routeProposal } from './routing.ts';
import { judgeEffects } from './side-effects.ts';

/** Everything one trial needs. Nothing in it is shared state: the trial makes its own. */
export interface TrialInput {
  provider: Provider;
  domain: Domain;
  surface: ResolvedSurface;
  task: Task;
  /** Trial number, from 0. */
  trial: number;
  /** Reused across trials (it holds no trial state); made from the domain when absent. */
  registry?: Registry<unknown>;
  settings?: ModelSettings;
  signal?: AbortSignal;
  /** Clock for `started_at` (tests pin it). */
  now?: () => Date;
  /** The run's live states: a run quitting at once tears down this trial's state too (LiveStates). */
  live?: LiveStates;
  /**
   * `simulated`: tool handlers' sleeps advance a per-call clock instead of
   * waiting (src/registry/tool-time.ts) and each call's `latency_ms` is its
   * simulated duration; outcomes are the same as in real time. Default real.
   */
  toolTime?: ToolTime;
}

/** How tool time passes: really, or simulated (offline runs: see TrialInput.toolTime). */
export type ToolTime = 'real' | 'simulated';

type TrialState = {
  calls: CallRecord[];
  effects: SideEffect[];
  seenChanges: Set<string>;
};

/**
 * Run one trial: fresh domain state, then ask → route → invoke → feed back
 * until the model answers without a call or a limit is hit. Model
 * misbehaviour is recorded as data; a provider failure ends the trial as
 * `errored` (turns so far kept), and so does a domain whose `createState`
 * fails (no turns: nothing was asked). The state is torn down after the
 * trial, however it ended. The record is unscored (`verdicts: []`).
 */
export async function runTrial(input: TrialInput): Promise<TrialRecord> {
  const { provider, domain, surface, task } = input;
  const registry = input.registry ?? (createDomainRegistry(domain) as Registry<unknown>);
  const startedAt = (input.now ?? (() => new Date()))().toISOString();
  let state: unknown;
  let setupError: string | null = null;
  try {
    // Awaited only when async: a synchronous domain's trial runs exactly as it always has.
    const made = domain.createState();
    state = isPromise(made) ? await made : made;
  } catch (caught) {
    setupError = `the domain's createState failed: ${caught instanceof Error ? caught.message : String(caught)}`;
  }
  // Torn down however the trial ends; a domain without a teardown adds nothing (not even a microtask).
  const release = setupError === null ? teardownOf(domain, state, { live: input.live }) : null;
  try {
    const receipts = new MemoryReceiptStore();
    const actions = new Map(domain.actions.map((action) => [action.id, action]));
    const approvals = new ApprovalLedger(task.approve, domain.actions);
    const faults = new FaultSchedule(task.faults);
    const trial: TrialState = { calls: [], effects: [], seenChanges: new Set() };
    const messages: ModelMessage[] = initialMessages(task);
    const requests: RequestSummary[] = [];
    const turns: ModelTurn[] = [];
    let stopReason: TrialRecord['stop_reason'] = 'max_turns';
    let error: TrialRecord['error'] = null;
    if (setupError !== null) {
      stopReason = 'errored';
      error = { status: null, message: setupError, retryable: false };
    }

    turnLoop: for (let turn = 0; error === null && turn < task.limits.max_turns; turn += 1) {
      const request = buildRequest({ model: provider.model, surface, messages, settings: input.settings });
      // Hashed once per request object (src/spec/request-hash.ts): replay and the recorder get the same hash back.
      const hash = requestHash(request);
      requests.push({ turn, messages: request.messages.length, tools: request.tools.length, request_hash: hash });
      let answer: ModelTurn;
      try {
        // Normalised here (defaults, only known fields), as it enters both the conversation and the record.
        answer = normalTurn(await provider.propose(request, { signal: input.signal, key: { domain: task.domain, task: task.id, surface: surface.id, trial: input.trial, turn } }));
      } catch (caught) {
        // Any provider failure is the provider's, never the model's: record it and stop.
        stopReason = 'errored';
        error = caught instanceof ProviderError
          ? { status: caught.status, message: caught.message, retryable: caught.retryable }
          : { status: null, message: caught instanceof Error ? caught.message : String(caught), retryable: false };
        break;
      }
      turns.push(answer);
      messages.push({ role: 'assistant', content: answer.text, tool_calls: answer.tool_calls });
      if (answer.tool_calls.length === 0) {
        stopReason = 'answered';
        break;
      }
      for (const proposal of answer.tool_calls) {
        // A proposal beyond max_calls is never executed: the trial stops there.
        if (trial.calls.length >= task.limits.max_calls) {
          stopReason = 'max_calls';
          break turnLoop;
        }
        const call = await executeProposal(proposal, turn, { ...input, trialNumber: input.trial, registry, state, receipts, actions, approvals, faults, trial });
        trial.calls.push(call);
        const failed = !call.outcome.ok;
        messages.push({
          role: 'tool',
          tool_call_id: proposal.id,
          name: proposal.name,
          content: JSON.stringify(call.outcome.ok ? (call.outcome.output ?? null) : call.outcome.error),
          is_error: failed,
        });
      }
    }

    // Counted once per surface payload (before a run's trials, in a worker: src/cost/schema-cost.ts).
    const cost = schemaCost(surface.payload);
    const finalState: Record<string, Json> = {};
    if (setupError === null) for (const [name, view] of Object.entries(domain.views)) finalState[name] = view(state);
    // Built field by field in schema order, with every part already normalised
    // (normalize.ts): the zod schema would cost more than the rest of a replayed
    // trial. The cheap structural check guards the result; anything it rejects
    // goes through the schema, which fills a default or says what is wrong.
    const record: TrialRecord = {
      v: 1,
      provider: provider.id,
      model: provider.model,
      domain: task.domain,
      surface: surface.id,
      surface_hash: surface.hash,
      split: task.split,
      task: task.id,
      kind: task.kind,
      trial: input.trial,
      status: error ? 'errored' : 'completed',
      error,
      stop_reason: stopReason,
      requests,
      turns,
      calls: trial.calls,
      effects: trial.effects,
      final_state: finalState,
      final_text: turns.at(-1)?.text ?? null,
      usage: {
        input_tokens: turns.reduce((sum, turn) => sum + turn.usage.input_tokens, 0),
        output_tokens: turns.reduce((sum, turn) => sum + turn.usage.output_tokens, 0),
      },
      // Model latency only: tool time is on each call, and replay keeps this deterministic.
      latency_ms: turns.reduce((sum, turn) => sum + turn.latency_ms, 0),
      schema_tokens: cost.tokens,
      schema_bytes: cost.bytes,
      started_at: startedAt,
      // The grade comes last: a re-score parses only what is before it (src/run-folder/graded-tail.ts).
      verdicts: [],
      success: null,
    };
    return isTrialRecordShape(record) ? record : TrialRecord.parse(record);
  } finally {
    if (release) await release();
  }
}

interface CallContext extends Omit<TrialInput, 'registry' | 'trial'> {
  trialNumber: number;
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

/** Route, apply faults and approvals, invoke, and judge the effects of one proposal. */
async function executeProposal(proposal: ToolCallProposal, turn: number, context: CallContext): Promise<CallRecord> {
  const routed = routeProposal(proposal, context.surface);
  const base = { turn, proposal, parsed: routed.parsed, routing: routed.routing };
  const schemaValid = routed.exposed && routed.callArgs && context.registry.has(routed.exposed.tool)
    ? context.registry.checkInput(routed.exposed.tool, routed.callArgs).ok
    : null;
  if (routed.error || routed.routing.kind !== 'resolved' || !routed.callArgs) {
    return callRecord(base, { schema_valid: routed.parsed ? schemaValid : false, outcome: { ok: false, error: normalToolError(routed.error!) } });
  }
  const { tool, action, args: actionArgs } = routed.routing;
  const approved = context.approvals.isApproved(action, actionArgs);
  const fault = context.faults.next(action);
  if (fault && fault.error !== undefined) {
    return callRecord(base, { schema_valid: schemaValid, approved, fault: { error: fault.error, inject: false, good_next: fault.good_next ?? null }, outcome: { ok: false, error: faultError(fault, context.domain.errors) } });
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
        approvals: context.approvals.forCall({ tool, idempotencyKey: contract?.idempotency_key ?? null, callArgs: routed.callArgs, action, actionArgs }),
        effects,
        receipts: context.receipts,
        signal: context.signal,
        simulatedTime,
      },
    );
  } catch (caught) {
    // The registry promises not to throw; if it does, the trial still goes on.
    result = { ok: false, error: toolError('handler_exception', `registry failed: ${caught instanceof Error ? caught.message : String(caught)}`) };
  }
  const latency = simulatedTime ? simulatedTime.elapsedMs : performance.now() - started;
  context.trial.effects.push(
    ...judgeEffects(effects, { actor: context.task.actor, actions: context.actions, isApproved: (effectAction) => context.approvals.isApproved(effectAction, actionArgs), seen: context.trial.seenChanges }),
  );
  if (result.ok) context.approvals.noteSuccess(action, actionArgs);
  const injected = fault?.inject !== undefined && result.ok;
  const outcome = result.ok
    ? { ok: true as const, output: injected ? injectIntoOutput(result.output, fault!.inject!) : result.output, replayed: result.replayed ?? false }
    : { ok: false as const, error: normalToolError(result.error) };
  return callRecord(base, {
    schema_valid: schemaValid,
    outcome,
    fault: injected ? { error: null, inject: true, good_next: fault!.good_next ?? null } : null,
    approved,
    latency_ms: latency,
  });
}
