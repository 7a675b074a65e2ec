// Hand-built trial records for scorer and aggregate tests.
import {
  Task,
  TrialRecord,
  type ActionSpec,
  type CallRecord,
  type SideEffect,
  type ToolError,
} from '../../src/spec/index.ts';

export const ACTIONS: ActionSpec[] = [
  {
    id: 'ticket.get',
    description: 'read one',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.list',
    description: 'list',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.lookup_slow',
    description: 'slow read',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.preview_followup',
    description: 'preview',
    effect: 'read',
    permission: 'ticket:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'ticket.record_followup',
    description: 'write',
    effect: 'write',
    permission: 'ticket:write',
    approval: 'required',
    idempotency_key: 'action_id',
    preview: 'ticket.preview_followup',
  },
];

/** A task with defaults filled by the real schema. */
export function task(fields: Record<string, unknown>): Task {
  return Task.parse({
    id: 't1',
    kind: 'must-call',
    messages: [{ role: 'user', content: 'hi' }],
    domain: 'tickets',
    split: 'train',
    source: { file: 'tasks.yaml', line: 1 },
    expect: {},
    ...fields,
  });
}

let callCounter = 0;

export interface CallOptions {
  turn?: number;
  name?: string;
  raw?: string;
  parsed?: boolean;
  schemaValid?: boolean | null;
  routing?: CallRecord['routing'];
  error?: Partial<ToolError> & { code: string };
  fault?: CallRecord['fault'];
  approved?: boolean;
}

/** A call routed to `action` (identity mapping) with `args`, succeeding unless `error` is given. */
export function call(action: string | null, args: unknown = {}, options: CallOptions = {}): CallRecord {
  const raw = options.raw ?? JSON.stringify(args);
  const routing =
    options.routing ??
    (action === null ? { kind: 'unknown_tool' as const } : { kind: 'resolved' as const, tool: action, action, args });
  const outcome: CallRecord['outcome'] = options.error
    ? {
        ok: false,
        error: { category: 'validation', message: options.error.code, retryable: false, details: {}, ...options.error },
      }
    : { ok: true, output: {}, replayed: false };
  return {
    turn: options.turn ?? 0,
    proposal: { id: `c${(callCounter += 1)}`, name: options.name ?? action ?? 'made_up_tool', arguments: raw },
    parsed: options.parsed ?? true,
    routing,
    schema_valid:
      options.schemaValid === undefined ? (routing.kind === 'unknown_tool' ? null : true) : options.schemaValid,
    outcome,
    fault: options.fault ?? null,
    approved: options.approved ?? false,
    latency_ms: 0,
  };
}

/**
 * A completed trial record. `turns` defaults to one model turn per distinct
 * call turn plus a final answering turn.
 */
export function record(fields: Partial<TrialRecord> & { calls?: CallRecord[] } = {}): TrialRecord {
  const calls = fields.calls ?? [];
  const lastTurn = calls.reduce((max, entry) => Math.max(max, entry.turn), -1);
  const turnCount = fields.turns?.length ?? lastTurn + 2;
  const turns =
    fields.turns ??
    Array.from({ length: turnCount }, (_, index) => ({
      text: index === turnCount - 1 ? (fields.final_text ?? null) : null,
      tool_calls: calls.filter((entry) => entry.turn === index).map((entry) => entry.proposal),
      usage: { input_tokens: 100, output_tokens: 10 },
      latency_ms: 50,
      finish_reason: 'stop',
      warnings: [],
    }));
  return TrialRecord.parse({
    v: 1,
    provider: 'replay',
    model: 'fixture',
    domain: 'tickets',
    surface: 'typed',
    surface_hash: 'sha256:typed',
    split: 'train',
    task: 't1',
    kind: 'must-call',
    trial: 0,
    status: 'completed',
    stop_reason: 'answered',
    requests: [],
    calls,
    effects: [] as SideEffect[],
    final_text: null,
    usage: { input_tokens: 100 * turnCount, output_tokens: 10 * turnCount },
    latency_ms: 50 * turnCount,
    schema_tokens: 400,
    schema_bytes: 1600,
    ...fields,
    turns,
  });
}

/** The verdict of one grader on a scored record. */
export function verdictOf(scored: TrialRecord, grader: string) {
  const found = scored.verdicts.find((entry) => entry.grader === grader);
  if (!found) throw new Error(`no ${grader} verdict; have ${scored.verdicts.map((entry) => entry.grader).join(', ')}`);
  return found;
}
