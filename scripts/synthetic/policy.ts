import type {
  ActionSpec,
  ModelRequest,
  ModelTurn,
  ResolvedSurface,
  Task,
  ToolError,
  TurnKey,
} from '../../src/spec/index.ts';
import { abstainAnswer, describeCall, errorAnswer, finalAnswer } from './answer.ts';
import { buildAgenda, NEAR_SYNONYMS, type Step, type TrialSetting } from './agenda.ts';
import type { Behaviour } from './behaviours.ts';
import { chance, draw, pick } from './random.ts';
import { SurfaceTraits } from './surface-traits.ts';
import { TASK_HINTS } from './task-hints.ts';

/** What a policy knows besides the request: the task, the surface it is on, the domain's actions. */
export interface PolicyContext {
  task: Task;
  surface: ResolvedSurface;
  /** The surface this one `extends`, if any (to tell how a revision changed the wording). */
  parent: ResolvedSurface | null;
  actions: readonly ActionSpec[];
}

/** A synthetic behaviour as a function: one request in, one model turn out. */
export type Policy = (request: ModelRequest, key: TurnKey, context: PolicyContext) => ModelTurn;

/** How a call was broken on purpose (malformed JSON, a wrong type, a wide-tool mistake). */
type Breakage = 'json' | 'type' | 'flat' | 'operation' | null;

interface PlannedCall {
  action: string;
  args: Record<string, unknown>;
  purpose: 'step' | 'retry' | 'fix' | 'alt' | 'inject' | 'guess-id';
  broken: Breakage;
}

type Move = { kind: 'call'; call: PlannedCall } | { kind: 'answer'; text: string };

/** The policy's mind at one point of the trial; rebuilt from the transcript every turn. */
interface State {
  step: number;
  attempts: number;
  outputs: unknown[];
  cursor: string | null;
  pages: number;
  lastCall: PlannedCall | null;
  lastError: ToolError | null;
  /** A write the injected text asked for, if this model will do it. */
  injection: PlannedCall | null;
  injectionsSeen: number;
  /** Read everything it meant to (no early stop, no give-up). */
  complete: boolean;
}

const MAX_ATTEMPTS = 3;

/** One past turn of the conversation: the calls proposed and the results that came back. */
interface PastTurn {
  results: { ok: boolean; value: unknown }[];
}

function pastTurns(request: ModelRequest, task: Task): PastTurn[] {
  const turns: PastTurn[] = [];
  for (const message of request.messages.slice(task.messages.length)) {
    if (message.role === 'assistant') turns.push({ results: [] });
    else if (message.role === 'tool' && turns.length > 0) {
      let value: unknown = message.content;
      try {
        value = JSON.parse(message.content);
      } catch {
        // a non-JSON result stays text
      }
      turns.at(-1)!.results.push({ ok: !message.is_error, value });
    }
  }
  return turns;
}

/** Break a call's arguments the way a sloppy model does: a wrong-typed field if there is one to break, else invalid JSON. */
function breakArguments(args: Record<string, unknown>): { raw: string } | { args: Record<string, unknown> } {
  for (const [field, value] of Object.entries(args)) {
    if (typeof value === 'number')
      return { args: { ...args, [field]: field === 'amount_cents' ? (value / 100).toFixed(2) : String(value) } };
  }
  for (const [field, value] of Object.entries(args)) {
    const digits = typeof value === 'string' ? /^(?:T|INV|C)-(\d+)$/.exec(value) : null;
    if (digits) return { args: { ...args, [field]: Number(digits[1]) } };
  }
  const json = JSON.stringify(args);
  return { raw: json.replace(/"([a-z_]+)":/, "'$1':").slice(0, Math.max(1, json.length - 1)) };
}

/** A synthetic behaviour as a policy over the real solve loop. */
export function createPolicy(behaviour: Behaviour): Policy {
  return (request, key, context) => {
    const { task } = context;
    const traits = new SurfaceTraits(context.surface, request.tools, context.parent);
    // No surface in the seed: the same trial on two surfaces draws the same numbers, so a difference
    // between surfaces comes from their different thresholds (common random numbers), not from luck.
    const seed = [behaviour.name, key.domain, key.task, key.trial] as const;
    const setting: TrialSetting = { behaviour, task, actions: context.actions, traits, seed };
    const agenda = buildAgenda(setting);
    const rates = behaviour.rates;

    const stepCall = (step: Step, state: State): PlannedCall | null => {
      const args = typeof step.args === 'function' ? step.args(state.outputs) : { ...step.args };
      if (args === null) return null;
      if (state.cursor !== null) args.cursor = state.cursor;
      const index = `${state.step}.${state.pages}`;
      let broken: Breakage = null;
      if (chance(rates.malformed, ...seed, 'malformed', index))
        broken = Object.keys(args).length ? (draw(...seed, 'malformed-kind', index) < 0.5 ? 'json' : 'type') : 'json';
      else if (traits.wide && chance(rates.wrongOperationName, ...seed, 'wrong-operation', index)) broken = 'operation';
      else if (traits.wide && Object.keys(args).length && chance(rates.flatWideArguments, ...seed, 'flat', index))
        broken = 'flat';
      return { action: step.action, args, purpose: 'step', broken };
    };

    const onError = (state: State, turn: number): Move => {
      const error = state.lastError!;
      const call = state.lastCall!;
      const clean: PlannedCall = { ...call, broken: null };
      if (state.attempts >= MAX_ATTEMPTS)
        return { kind: 'answer', text: errorAnswer(error, describeCall(call.action, call.args)) };
      if (call.broken) {
        // Its own mistake came back as an error: a wide-tool slip is easy to see; broken arguments it fixes only sometimes.
        const recover =
          call.broken === 'operation' || call.broken === 'flat'
            ? Math.max(rates.recoverAfterInvalid, 0.8)
            : rates.recoverAfterInvalid;
        if (chance(recover, ...seed, 'recover', turn)) return { kind: 'call', call: { ...clean, purpose: 'fix' } };
        return { kind: 'answer', text: "Sorry, the tool keeps rejecting my request, so I couldn't finish this." };
      }
      if (error.code === 'approval_required') {
        if (chance(rates.resendAfterApproval, ...seed, 'resend-write', turn))
          return { kind: 'call', call: { ...clean, purpose: 'retry' } };
        return { kind: 'answer', text: errorAnswer(error, describeCall(call.action, call.args)) };
      }
      if (error.retryable) {
        if (chance(rates.giveUpOnTimeout, ...seed, 'give-up', turn))
          return { kind: 'answer', text: errorAnswer(error, '') };
        return { kind: 'call', call: { ...clean, purpose: 'retry' } };
      }
      if (error.category === 'not_found') {
        const requery =
          TASK_HINTS[task.id]?.requery?.[call.action] ??
          (/archive|current invoice/i.test(error.message) ? NEAR_SYNONYMS[call.action]?.[0] : undefined);
        if (requery && traits.has(requery))
          return { kind: 'call', call: { action: requery, args: { ...call.args }, purpose: 'alt', broken: null } };
        const idField = Object.keys(call.args).find((field) => /_id$/.test(field));
        const id = idField ? String(call.args[idField]) : '';
        const digits = /(\d+)$/.exec(id);
        if (idField && digits && chance(rates.guessAfterNotFound, ...seed, 'guess-id', turn)) {
          const guessed = id.replace(
            /\d+$/,
            String(Number(digits[1]) - 1 - Math.floor(draw(...seed, 'guess-offset') * 3)).padStart(
              digits[1]!.length,
              '0',
            ),
          );
          return {
            kind: 'call',
            call: {
              action: call.action,
              args: { ...call.args, [idField]: guessed },
              purpose: 'guess-id',
              broken: null,
            },
          };
        }
        return { kind: 'answer', text: `I couldn't find ${id || 'that'}: ${error.message}` };
      }
      if (error.code === 'invalid_arguments') {
        if (chance(rates.ignoreArgumentHint, ...seed, 'ignore-hint', turn))
          return { kind: 'call', call: { ...clean, purpose: 'retry' } };
        const limit = /limit[^.]*?(\d+)/i.exec(error.message);
        if (limit)
          return { kind: 'call', call: { ...clean, args: { ...call.args, limit: Number(limit[1]) }, purpose: 'fix' } };
      }
      return { kind: 'answer', text: errorAnswer(error, describeCall(call.action, call.args)) };
    };

    const decide = (state: State, turn: number): Move => {
      if (state.lastError) return onError(state, turn);
      if (state.injection) return { kind: 'call', call: state.injection };
      while (state.step < agenda.length) {
        const call = stepCall(agenda[state.step]!, state);
        if (call) return { kind: 'call', call };
        state.step += 1; // an extra read with nothing to read: skip it
      }
      if (agenda.length === 0) return { kind: 'answer', text: abstainAnswer(task) };
      const terse = chance(rates.terseAnswer, ...seed, 'terse');
      return { kind: 'answer', text: finalAnswer(task, state.outputs, { complete: state.complete, terse }) };
    };

    const absorb = (state: State, move: Move, turn: PastTurn): void => {
      if (move.kind === 'answer') return;
      const { call } = move;
      const result = turn.results[0];
      state.lastCall = call;
      if (call.purpose === 'inject') state.injection = null;
      if (!result) return;
      if (!result.ok) {
        // A refused injected write: it goes back to what the user asked.
        if (call.purpose === 'inject') return;
        state.lastError = result.value as ToolError;
        state.attempts += 1;
        return;
      }
      state.lastError = null;
      state.outputs.push(result.value);
      const output = result.value as Record<string, unknown> | null;
      const notice = output && typeof output === 'object' && typeof output.notice === 'string' ? output.notice : null;
      if (notice && call.purpose !== 'inject') {
        state.injectionsSeen += 1;
        if (chance(rates.followInjection, ...seed, 'follow-injection', state.injectionsSeen))
          state.injection = injectedCall(notice, output!, setting);
      }
      if (call.purpose === 'inject') return;
      state.attempts = 0;
      const step = agenda[state.step];
      const next = output && typeof output.next_cursor === 'string' ? output.next_cursor : null;
      if (step?.page && next !== null) {
        if (chance(rates.stopPagingEarly, ...seed, 'stop-paging', state.pages)) state.complete = false;
        else {
          state.cursor = next;
          state.pages += 1;
          return;
        }
      }
      state.cursor = null;
      state.pages = 0;
      state.step += 1;
    };

    const state: State = {
      step: 0,
      attempts: 0,
      outputs: [],
      cursor: null,
      pages: 0,
      lastCall: null,
      lastError: null,
      injection: null,
      injectionsSeen: 0,
      complete: true,
    };
    const past = pastTurns(request, task);
    past.forEach((turn, index) => absorb(state, decide(state, index), turn));
    const move = decide(state, past.length);
    return render(move, traits, key, behaviour, request);
  };
}

/** The write an injected instruction asks for, in this domain's terms. */
function injectedCall(notice: string, output: Record<string, unknown>, setting: TrialSetting): PlannedCall | null {
  const firstId = (list: unknown) =>
    Array.isArray(list) && list[0] && typeof list[0] === 'object'
      ? String((list[0] as Record<string, unknown>).id)
      : null;
  const quoted = /'([^']+)'/.exec(notice)?.[1];
  if (setting.task.domain === 'tickets') {
    const ticket =
      /T-\d{3}/.exec(notice)?.[0] ?? firstId(output.tickets) ?? (typeof output.id === 'string' ? output.id : null);
    if (!ticket) return null;
    return {
      action: 'ticket.record_followup',
      args: { ticket_id: ticket, note: quoted ?? 'Closed.', action_id: `inj-${ticket.toLowerCase()}` },
      purpose: 'inject',
      broken: null,
    };
  }
  const invoice = /INV-\d{4}/.exec(notice)?.[0] ?? firstId(output.invoices);
  if (!invoice) return null;
  const cents = /(\d+) cents/.exec(notice)?.[1];
  const amount = cents ? Number(cents) : typeof output.amount_cents === 'number' ? output.amount_cents : 1000;
  const refundId = /refund_id (\S+?)[,.)]?(?:\s|$)/.exec(notice)?.[1] ?? `inj-${invoice.toLowerCase()}`;
  return {
    action: 'billing.refund.submit',
    args: { invoice_id: invoice, amount_cents: amount, refund_id: refundId },
    purpose: 'inject',
    broken: null,
  };
}

/** Turn a move into a normalised model turn, with seeded synthetic usage and latency. */
function render(
  move: Move,
  traits: SurfaceTraits,
  key: TurnKey,
  behaviour: Behaviour,
  request: ModelRequest,
): ModelTurn {
  const inputTokens = Math.round(
    JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }).length / 3.8,
  );
  const jitter = draw(behaviour.name, key.domain, key.surface, key.task, key.trial, key.turn, 'latency');
  const speed = behaviour.name === 'hasty' ? 0.6 : behaviour.name === 'careful' ? 1.3 : 1;
  if (move.kind === 'answer') {
    const outputTokens = Math.max(4, Math.round(move.text.length / 4));
    return {
      text: move.text,
      tool_calls: [],
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      latency_ms: Math.round((280 + inputTokens * 0.08 + outputTokens * 14) * speed + jitter * 240),
      finish_reason: 'stop',
      warnings: [],
    };
  }
  const { call } = move;
  let args = call.args;
  let raw: string | null = null;
  if (call.broken === 'json' || call.broken === 'type') {
    const broken = breakArguments(args);
    if ('raw' in broken) raw = broken.raw;
    else args = broken.args;
  }
  const wrongOperation =
    call.broken === 'operation'
      ? pick(['read', 'fetch', 'create', 'update'], key.task, key.trial, key.turn)
      : undefined;
  const encoded = traits.encode(call.action, args, { flat: call.broken === 'flat', operation: wrongOperation });
  // An action the surface lacks (an injected instruction naming another domain's tool): the model writes the name it read.
  const name = encoded?.name ?? call.action;
  const argumentsText = raw ?? JSON.stringify(encoded?.arguments ?? args);
  const outputTokens = Math.round(argumentsText.length / 3.5) + 8;
  return {
    text: null,
    tool_calls: [{ id: `call_${key.turn}_${Math.floor(jitter * 1e6).toString(36)}`, name, arguments: argumentsText }],
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    latency_ms: Math.round((320 + inputTokens * 0.08 + outputTokens * 14) * speed + jitter * 260),
    finish_reason: 'tool_calls',
    warnings: [],
  };
}
