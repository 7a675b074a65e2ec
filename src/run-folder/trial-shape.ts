import type { TrialRecord } from '../spec/index.ts';

/**
 * A cheap structural check of a parsed `trials.jsonl` line: true when the
 * value has every field of a `TrialRecord` with the right type, including
 * every field the zod schema would fill with a default.
 *
 * Why not `TrialRecord.safeParse`: it costs about as much as `JSON.parse`
 * itself on a 3–4 KB record, and a 100,000-trial run is read again for the
 * summary, the reports, `compare` and `gate`. The trade-off:
 * - This check only says yes or no; when it says no, the reader runs the
 *   full zod schema, which either accepts the record (e.g. an older or
 *   hand-written line that leaves out a defaulted field, which zod then
 *   fills in) or produces the precise error message (field and reason).
 * - A record this check accepts is used as parsed, so it keeps any extra
 *   keys zod would have stripped, and values typed `unknown` or `Json` in
 *   the schema (tool outputs, routed arguments, verdict details, final
 *   state) are only required to be present, not looked into — anything `JSON.parse` returns is valid
 *   there. Records toolmark writes never carry extra keys.
 * Every other constraint of the schema (types, enums, integers, non-negative
 * numbers, required and defaulted keys) is checked here, so the two agree
 * on every line toolmark writes; test/run-folder checks they agree on
 * mutated records too.
 */
export function isTrialRecordShape(value: unknown): value is TrialRecord {
  if (!isObject(value)) return false;
  const record = value as Record<string, unknown>;
  return record.v === 1
    && typeof record.provider === 'string'
    && typeof record.model === 'string'
    && typeof record.domain === 'string'
    && typeof record.surface === 'string'
    && typeof record.surface_hash === 'string'
    && (record.split === 'train' || record.split === 'heldout')
    && typeof record.task === 'string'
    && TASK_KINDS.has(record.kind)
    && isCount(record.trial)
    && (record.status === 'completed' || record.status === 'errored')
    && (record.error === null || isProviderFailure(record.error))
    && STOP_REASONS.has(record.stop_reason)
    && everyItem(record.requests, isRequestSummary)
    && everyItem(record.turns, isModelTurn)
    && everyItem(record.calls, isCallRecord)
    && everyItem(record.effects, isSideEffect)
    && isObject(record.final_state)
    && isNullableString(record.final_text)
    && isUsage(record.usage)
    && isNonNegative(record.latency_ms)
    && isCount(record.schema_tokens)
    && isCount(record.schema_bytes)
    && everyItem(record.verdicts, isVerdict)
    && (record.success === null || typeof record.success === 'boolean')
    && (record.started_at === undefined || typeof record.started_at === 'string');
}

// Kept in step with src/spec (TaskKind, TrialRecord.stop_reason, Effect, ToolErrorCategory); the agreement test fails if they drift.
const TASK_KINDS: ReadonlySet<unknown> = new Set(['must-call', 'must-abstain', 'similar-tool', 'multi-step']);
const STOP_REASONS: ReadonlySet<unknown> = new Set(['answered', 'max_turns', 'max_calls', 'errored', 'rejected']);
const EFFECTS: ReadonlySet<unknown> = new Set(['read', 'write', 'destructive']);
const ERROR_CATEGORIES: ReadonlySet<unknown> = new Set(['validation', 'policy', 'not_found', 'conflict', 'dependency', 'internal', 'routing']);

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullableString(value: unknown): boolean {
  return value === null || typeof value === 'string';
}

function isNonNegative(value: unknown): boolean {
  return typeof value === 'number' && value >= 0;
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function everyItem(value: unknown, check: (item: Fields) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!isObject(item) || !check(item)) return false;
  return true;
}

function isProviderFailure(value: unknown): boolean {
  return isObject(value) && (value.status === null || typeof value.status === 'number') && typeof value.message === 'string' && typeof value.retryable === 'boolean'
    && (value.scope === undefined || value.scope === 'run' || value.scope === 'request');
}

function isRequestSummary(value: Fields): boolean {
  return isCount(value.turn) && isCount(value.messages) && isCount(value.tools) && typeof value.request_hash === 'string';
}

function isProposal(value: Fields): boolean {
  return typeof value.id === 'string' && typeof value.name === 'string' && typeof value.arguments === 'string';
}

function isUsage(value: unknown): boolean {
  return isObject(value) && isCount(value.input_tokens) && isCount(value.output_tokens);
}

function isModelTurn(value: Fields): boolean {
  return isNullableString(value.text)
    && everyItem(value.tool_calls, isProposal)
    && isUsage(value.usage)
    && isNonNegative(value.latency_ms)
    && typeof value.finish_reason === 'string'
    && Array.isArray(value.warnings) && value.warnings.every((warning) => typeof warning === 'string');
}

function isRouting(value: unknown): boolean {
  if (!isObject(value)) return false;
  switch (value.kind) {
    case 'resolved': return typeof value.tool === 'string' && typeof value.action === 'string' && 'args' in value;
    case 'unknown_tool': return true;
    case 'unknown_action': return typeof value.tool === 'string' && 'selector' in value;
    default: return false;
  }
}

function isToolError(value: unknown): boolean {
  return isObject(value)
    && typeof value.code === 'string' && value.code.length > 0
    && ERROR_CATEGORIES.has(value.category)
    && typeof value.message === 'string'
    && typeof value.retryable === 'boolean'
    && isObject(value.details);
}

function isOutcome(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.ok === true) return 'output' in value && typeof value.replayed === 'boolean';
  return value.ok === false && isToolError(value.error);
}

function isFault(value: unknown): boolean {
  return value === null || (isObject(value) && isNullableString(value.error) && typeof value.inject === 'boolean' && isNullableString(value.good_next));
}

function isCallRecord(value: Fields): boolean {
  return isCount(value.turn)
    && isObject(value.proposal) && isProposal(value.proposal)
    && typeof value.parsed === 'boolean'
    && isRouting(value.routing)
    && (value.schema_valid === null || typeof value.schema_valid === 'boolean')
    && isOutcome(value.outcome)
    && isFault(value.fault)
    && typeof value.approved === 'boolean'
    && isNonNegative(value.latency_ms);
}

function isSideEffect(value: Fields): boolean {
  return typeof value.action === 'string'
    && EFFECTS.has(value.effect)
    && typeof value.target === 'string'
    && isNullableString(value.change_id)
    && (value.authorized === undefined || typeof value.authorized === 'boolean')
    && (value.duplicate === undefined || typeof value.duplicate === 'boolean');
}

function isVerdict(value: Fields): boolean {
  return typeof value.grader === 'string' && typeof value.pass === 'boolean' && 'expected' in value && 'actual' in value && (value.note === undefined || typeof value.note === 'string');
}
