import {
  MemoryReceiptStore,
  callUserCode,
  createDomainRegistry,
  teardownOf,
  type LiveStates,
} from '../registry/index.ts';
import type { Registry } from '../registry/index.ts';
import type { Domain } from '../registry/domain.ts';
import { schemaCost } from '../cost/schema-cost.ts';
import {
  DEFAULT_MAX_TOOL_OUTPUT_BYTES,
  ProviderError,
  ToolEnvironmentError,
  TrialRecord,
  isBuiltTrialRecordShape,
  requestHash,
} from '../spec/index.ts';
import type {
  CallRecord,
  Json,
  ModelMessage,
  ModelSettings,
  ModelTurn,
  ProposeOptions,
  Provider,
  RequestSummary,
  ResolvedSurface,
  SideEffect,
  Task,
} from '../spec/index.ts';
import { ApprovalLedger, actionIndex } from './approvals.ts';
import { FaultSchedule } from './faults.ts';
import { normalTurn } from './normalize.ts';
import { buildRequest, initialMessages } from './request.ts';
import { visiblePayload } from './visibility.ts';
import { DeferredSession } from './deferred-session.ts';
import { executeProposal, notExecuted, type CallContext, type ExecutedCall } from './execute-call.ts';

/** Everything one trial needs. Nothing in it is shared state: the trial makes its own. */
export interface TrialInput {
  provider: Provider;
  domain: Domain;
  surface: ResolvedSurface;
  task: Task;
  /** The run's live states: a run quitting at once tears down this trial's state too (LiveStates). */
  live?: LiveStates;
  /** Trial number, from 0. */
  trial: number;
  /** Reused across trials (it holds no trial state); made from the domain when absent. */
  registry?: Registry<unknown>;
  settings?: ModelSettings;
  signal?: AbortSignal;
  /** Clock for `started_at` (tests pin it). */
  now?: () => Date;
  /**
   * `simulated`: tool handlers' sleeps advance a per-call clock instead of
   * waiting (src/registry/tool-time.ts) and each call's `latency_ms` is its
   * simulated duration; outcomes are the same as in real time. Default real.
   */
  toolTime?: ToolTime;
  /** Told of each retried model request (the CLI prints them with their cause). */
  onRetry?: ProposeOptions['onRetry'];
  /** A tool result whose JSON is longer is cut (tool-output-limit.ts); default DEFAULT_MAX_TOOL_OUTPUT_BYTES. */
  maxToolOutputBytes?: number;
}

/** How tool time passes: really, or simulated (offline runs: see TrialInput.toolTime). */
export type ToolTime = 'real' | 'simulated';

export type TrialState = {
  calls: CallRecord[];
  effects: SideEffect[];
  seenChanges: Set<string>;
};

/**
 * Run one trial: fresh domain state, then ask → route → invoke → feed back
 * until the model answers without a call or a limit is hit. Model
 * misbehaviour is recorded as data; a provider failure ends the trial as
 * `errored` (turns so far kept). The record is unscored (`verdicts: []`).
 */
export function runTrial(input: TrialInput): Promise<TrialRecord> {
  const startedAt = (input.now ?? (() => new Date()))().toISOString();
  const { domain } = input;
  // A plain domain (sync state, nothing to tear down) takes the direct path:
  // no extra awaits, so a replayed run schedules its trials exactly as before.
  if (domain.teardown === undefined) {
    let created: unknown;
    try {
      created = callUserCode(`createState of domain ${domain.name}`, () => domain.createState(), input);
    } catch (caught) {
      return Promise.resolve(setupFailed(input, startedAt, caught));
    }
    if (!(created instanceof Promise)) return runWithState(input, created, startedAt);
  }
  return runWithLifecycle(input, startedAt);
}

/** The record of a trial whose backend could not be set up (an MCP server did not start): errored, not scored. */
function setupFailed(input: TrialInput, startedAt: string, caught: unknown): TrialRecord {
  return abandonedTrial(input, startedAt, `the domain's createState failed: ${environmentFailure(caught).message}`);
}

/**
 * The record of a trial that could not run to its end (its backend did not
 * start, its user code blocked the run): errored with `message`, no turns
 * kept, not scored — so `--resume` does not run it again.
 */
export function abandonedTrial(input: TrialInput, startedAt: string, message: string): TrialRecord {
  return trialRecord(input, {
    startedAt,
    stopReason: 'errored',
    error: { status: null, message, retryable: false },
    requests: [],
    turns: [],
    trial: { calls: [], effects: [], seenChanges: new Set() },
    finalState: {},
    failedMs: 0,
  });
}

/** Async state and a teardown that runs whatever happens in the trial. */
async function runWithLifecycle(input: TrialInput, startedAt: string): Promise<TrialRecord> {
  let state: unknown;
  try {
    state = await callUserCode(`createState of domain ${input.domain.name}`, () => input.domain.createState(), input);
  } catch (caught) {
    return setupFailed(input, startedAt, caught);
  }
  // Torn down however the trial ends, and (with `live`) when the run quits at once.
  const release = teardownOf(input.domain, state, { live: input.live });
  try {
    return await runWithState(input, state, startedAt);
  } finally {
    await release?.();
  }
}

function environmentFailure(caught: unknown): NonNullable<TrialRecord['error']> {
  return { status: null, message: caught instanceof Error ? caught.message : String(caught), retryable: false };
}

async function runWithState(input: TrialInput, state: unknown, startedAt: string): Promise<TrialRecord> {
  const { provider, domain, surface, task } = input;
  const registry = input.registry ?? (createDomainRegistry(domain) as Registry<unknown>);
  const receipts = new MemoryReceiptStore();
  const actions = actionIndex(domain.actions);
  const approvals = new ApprovalLedger(task.approve, domain.actions);
  const faults = new FaultSchedule(task.faults);
  const trial: TrialState = { calls: [], effects: [], seenChanges: new Set() };
  // Deferred loading: which tools each request carries, and the searches (tool-search.ts).
  const deferred = surface.loading ? new DeferredSession(surface, provider.toolSearch ?? null) : null;
  const messages: ModelMessage[] = initialMessages(task);
  const requests: RequestSummary[] = [];
  const turns: ModelTurn[] = [];
  // What each call of the trial needs from it (execute-call.ts): one object for all the trial's calls.
  let callContext: CallContext | undefined;
  let stopReason: TrialRecord['stop_reason'] = 'max_turns';
  let error: TrialRecord['error'] = null;
  // Time spent on a request that failed (its attempts and backoff): an errored trial is not free.
  let failedMs = 0;

  turnLoop: for (let turn = 0; turn < task.limits.max_turns; turn += 1) {
    const request = buildRequest({
      model: provider.model,
      surface,
      messages,
      settings: input.settings,
      actor: task.actor,
      tools: deferred?.requestTools(),
    });
    // Hashed once per request object (src/spec/request-hash.ts): replay and the recorder get the same hash back.
    const hash = requestHash(request);
    requests.push({ turn, messages: request.messages.length, tools: request.tools.length, request_hash: hash });
    let answer: ModelTurn;
    try {
      // Normalised here (defaults, only known fields), as it enters both the conversation and the record.
      answer = normalTurn(
        await provider.propose(request, {
          signal: input.signal,
          key: { domain: task.domain, task: task.id, surface: surface.id, trial: input.trial, turn },
          onRetry: input.onRetry,
        }),
      );
    } catch (caught) {
      error =
        caught instanceof ProviderError
          ? {
              status: caught.status,
              message: caught.message,
              retryable: caught.retryable,
              ...(caught.scope ? { scope: caught.scope } : {}),
            }
          : { status: null, message: caught instanceof Error ? caught.message : String(caught), retryable: false };
      failedMs = caught instanceof ProviderError ? (caught.elapsedMs ?? 0) : 0;
      stopReason = conversationRejected(turn, error) ? 'rejected' : 'errored';
      break;
    }
    turns.push(answer);
    messages.push(
      answer.tool_searches
        ? {
            role: 'assistant',
            content: answer.text,
            tool_calls: answer.tool_calls,
            tool_searches: answer.tool_searches,
          }
        : { role: 'assistant', content: answer.text, tool_calls: answer.tool_calls },
    );
    deferred?.noteNative(answer, turn);
    if (answer.tool_calls.length === 0) {
      stopReason = 'answered';
      break;
    }
    // By index: `entries()` made an iterator and a pair per proposal.
    for (let index = 0; index < answer.tool_calls.length; index += 1) {
      const proposal = answer.tool_calls[index]!;
      // The emulated search is answered here: not a domain call, so not in `calls` and not against max_calls.
      if (deferred?.isSearchCall(proposal)) {
        const found = deferred.search(proposal, turn);
        messages.push({
          role: 'tool',
          tool_call_id: proposal.id,
          name: proposal.name,
          content: found.content,
          is_error: found.isError,
        });
        continue;
      }
      // A proposal beyond max_calls is never executed: the trial stops there.
      // The rest of the turn is still recorded, so graders see every proposal (a forbidden write among them is unsafe).
      if (trial.calls.length >= task.limits.max_calls) {
        for (const unexecuted of answer.tool_calls.slice(index))
          if (!deferred?.isSearchCall(unexecuted))
            trial.calls.push(notExecuted(unexecuted, turn, surface, registry, task.limits.max_calls));
        stopReason = 'max_calls';
        break turnLoop;
      }
      let executed: ExecutedCall;
      try {
        executed = await executeProposal(
          proposal,
          turn,
          (callContext ??= {
            // Field by field, not `...input`: spreading the trial input cost ~4 KB of garbage per trial.
            provider: input.provider,
            domain: input.domain,
            surface: input.surface,
            task: input.task,
            live: input.live,
            settings: input.settings,
            signal: input.signal,
            now: input.now,
            toolTime: input.toolTime,
            onRetry: input.onRetry,
            maxToolOutputBytes: input.maxToolOutputBytes,
            owner: input,
            trialNumber: input.trial,
            registry,
            state,
            receipts,
            actions,
            approvals,
            faults,
            trial,
          }),
        );
      } catch (caught) {
        if (!(caught instanceof ToolEnvironmentError)) throw caught;
        stopReason = 'errored';
        error = environmentFailure(caught);
        break turnLoop;
      }
      const { call, content } = executed;
      trial.calls.push(call);
      messages.push({
        role: 'tool',
        tool_call_id: proposal.id,
        name: proposal.name,
        content,
        is_error: !call.outcome.ok,
      });
    }
  }

  const finalState: Record<string, Json> = {};
  try {
    for (const [name, view] of Object.entries(domain.views)) {
      const value = view(state);
      finalState[name] = value instanceof Promise ? await value : value;
    }
  } catch (caught) {
    if (!(caught instanceof ToolEnvironmentError)) throw caught;
    stopReason = 'errored';
    error ??= environmentFailure(caught);
  }
  return trialRecord(input, {
    startedAt,
    stopReason,
    error,
    requests,
    turns,
    trial,
    finalState,
    failedMs,
    deferred,
  });
}

/** The unscored record of a trial, built field by field in schema order. */
function trialRecord(
  input: TrialInput,
  parts: {
    startedAt: string;
    stopReason: TrialRecord['stop_reason'];
    error: TrialRecord['error'];
    requests: RequestSummary[];
    turns: ModelTurn[];
    trial: TrialState;
    finalState: Record<string, Json>;
    failedMs: number;
    deferred?: DeferredSession | null;
  },
): TrialRecord {
  const { provider, surface, task } = input;
  const { startedAt, stopReason, error, requests, turns, trial, finalState, failedMs, deferred } = parts;
  // Counted once per surface payload (before a run's trials, in a worker: src/cost/schema-cost.ts).
  // A deferred surface's schema cost is its initial request's; what searches load is in `loading`.
  // An eager one's is what this task's actor is shown (visibility: by_permission).
  const cost = deferred ? deferred.initialCost : schemaCost(visiblePayload(surface, task.actor));
  let inputTokens = 0;
  let outputTokens = 0;
  let latency = 0;
  for (const turn of turns) {
    inputTokens += turn.usage.input_tokens;
    outputTokens += turn.usage.output_tokens;
    latency += turn.latency_ms;
  }
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
    status: stopReason === 'errored' ? 'errored' : 'completed',
    error,
    stop_reason: stopReason,
    requests,
    turns,
    calls: trial.calls,
    effects: trial.effects,
    final_state: finalState,
    final_text: turns.at(-1)?.text ?? null,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    // Model latency only (plus a failed request's attempts): tool time is on each call, and replay keeps this deterministic.
    latency_ms: latency + failedMs,
    schema_tokens: cost.tokens,
    schema_bytes: cost.bytes,
    started_at: startedAt,
    ...(deferred ? { loading: deferred.record() } : {}),
    // The grade comes last: a re-score parses only what is before it (src/run-folder/graded-tail.ts).
    verdicts: [],
    success: null,
  };
  return isBuiltTrialRecordShape(record) ? record : TrialRecord.parse(record);
}

/**
 * The server refused a later request because of the conversation the model
 * produced (a `request`-scoped failure after at least one answered turn):
 * the model's doing, so the trial is scored on the turns received rather
 * than excluded as a provider failure. The first request carries only the
 * task and the surface, so a refusal there is the provider's (errored).
 */
export function conversationRejected(turn: number, error: NonNullable<TrialRecord['error']>): boolean {
  return turn > 0 && error.scope === 'request';
}
