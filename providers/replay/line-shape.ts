import type { CassetteLine } from '../../src/spec/index.ts';

/**
 * A cheap structural check of a parsed cassette line: true when the value is
 * exactly what `CassetteLine.parse` would return unchanged — every field of
 * the strict line and key, and a response with every ModelTurn field
 * (defaults included) and no other key. A 100,000-trial cassette has tens
 * of thousands of lines, and the zod schema costs more than `JSON.parse`;
 * any line this check does not accept goes through the schema, which fills
 * the defaults of a hand-written line or names what is wrong
 * (cassette-file.ts), so the two always agree (test/providers).
 */
export function isCassetteLineShape(value: unknown): value is CassetteLine {
  if (!isObject(value) || !onlyKeys(value, LINE_KEYS)) return false;
  return value.v === 1
    && typeof value.provider === 'string'
    && typeof value.model === 'string'
    && isKey(value.key)
    && optionalString(value.request_hash)
    && optionalString(value.tools_hash)
    && optionalString(value.messages_hash)
    && optionalString(value.label)
    && isTurn(value.response);
}

const LINE_KEYS: ReadonlySet<string> = new Set(['v', 'provider', 'model', 'key', 'request_hash', 'tools_hash', 'messages_hash', 'label', 'response']);
const KEY_KEYS: ReadonlySet<string> = new Set(['domain', 'task', 'surface', 'trial', 'turn']);
const TURN_KEYS: ReadonlySet<string> = new Set(['text', 'tool_calls', 'usage', 'latency_ms', 'finish_reason', 'warnings']);
const PROPOSAL_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'arguments']);
const USAGE_KEYS: ReadonlySet<string> = new Set(['input_tokens', 'output_tokens']);

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** No key outside `allowed` (a strict schema rejects them; a plain one would strip them). */
function onlyKeys(value: Fields, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isKey(value: unknown): boolean {
  return isObject(value) && onlyKeys(value, KEY_KEYS)
    && typeof value.domain === 'string' && typeof value.task === 'string' && typeof value.surface === 'string'
    && (value.trial === '*' || isCount(value.trial))
    && isCount(value.turn);
}

function isTurn(value: unknown): boolean {
  if (!isObject(value) || !onlyKeys(value, TURN_KEYS)) return false;
  const { usage, tool_calls: calls, warnings } = value;
  return (value.text === null || typeof value.text === 'string')
    && Array.isArray(calls) && calls.every((call) => isObject(call) && onlyKeys(call, PROPOSAL_KEYS) && typeof call.id === 'string' && typeof call.name === 'string' && typeof call.arguments === 'string')
    && isObject(usage) && onlyKeys(usage, USAGE_KEYS) && isCount(usage.input_tokens) && isCount(usage.output_tokens)
    && typeof value.latency_ms === 'number' && value.latency_ms >= 0
    && typeof value.finish_reason === 'string'
    && Array.isArray(warnings) && warnings.every((warning) => typeof warning === 'string');
}
