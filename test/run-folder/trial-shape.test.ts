import { describe, expect, it } from 'vitest';
import { isBuiltTrialRecordShape, isTrialRecordShape } from '../../src/spec/index.ts';
import { TrialRecord } from '../../src/spec/index.ts';
import { fixtureTrials } from '../report/fixture-run.ts';

// The reader trusts the cheap structural check instead of the zod schema
// (`isTrialRecordShape`, derived from the schema by src/spec/shape-check.ts). That is only sound if the check never
// accepts what zod would reject or change, so both are run here on valid
// records and on every single-field mutation of them.

/** Records covering every branch of the schema: errored, routed three ways, faults, effects, notes. */
function samples(): TrialRecord[] {
  const fixture = fixtureTrials({ trials: 1 });
  const completed =
    fixture.find((record) => record.calls.length > 0 && record.effects.length > 0) ??
    fixture.find((record) => record.calls.length > 0)!;
  const errored = fixture.find((record) => record.status === 'errored')!;
  const call = completed.calls[0]!;
  const varied = TrialRecord.parse({
    ...completed,
    calls: [
      call,
      {
        ...call,
        routing: { kind: 'unknown_tool' },
        schema_valid: null,
        outcome: {
          ok: false,
          error: {
            code: 'tool_not_found',
            category: 'routing',
            message: 'no tool',
            retryable: false,
            details: { available: ['a'] },
          },
        },
      },
      {
        ...call,
        routing: { kind: 'unknown_action', tool: 'ticket.operation', selector: 'frobnicate' },
        fault: { error: 'tool_timeout', inject: false, good_next: 'retry' },
        approved: true,
      },
      {
        ...call,
        outcome: { ok: true, output: null, replayed: true },
        fault: { error: null, inject: true, good_next: null },
      },
    ],
    effects: [
      { action: 'ticket.record_followup', effect: 'write', target: 'T-102', change_id: 'a1' },
      { action: 'x', effect: 'destructive', target: 't', change_id: null, authorized: true, duplicate: false },
    ],
    verdicts: [
      ...completed.verdicts,
      { grader: 'recovery', pass: true, expected: 'x', actual: { good: 0 }, note: 'metric only' },
    ],
    final_state: { followups: { 'T-102': ['note'] }, count: 1 },
    started_at: '2026-11-29T22:40:00.000Z',
  });
  return [...fixture.slice(0, 12), completed, errored, varied];
}

const WRONG_VALUES: unknown[] = [undefined, null, '', 'x', -1, 1.5, 0, 2 ** 60, true, [], {}, [{}]];

/** Every (path, value) mutation of a JSON tree: each field replaced by each wrong value, or removed. */
function* mutations(
  value: unknown,
  path: (string | number)[] = [],
): Generator<{ path: (string | number)[]; value: unknown }> {
  if (value === null || typeof value !== 'object') return;
  for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
    const child = (value as Record<string | number, unknown>)[key];
    for (const wrong of WRONG_VALUES) yield { path: [...path, key], value: wrong };
    yield* mutations(child, [...path, key]);
  }
}

function mutate(record: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(record) as Record<string | number, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) {
    if (Array.isArray(target)) target.splice(last as number, 1);
    else delete target[last];
  } else target[last] = value;
  return copy;
}

describe('isTrialRecordShape agrees with TrialRecord', () => {
  it('accepts every record toolmark writes (parsed JSON of a full record)', () => {
    for (const record of samples()) expect(isTrialRecordShape(JSON.parse(JSON.stringify(record)))).toBe(true);
  });

  it('never accepts a mutated record that zod rejects or would change (a default filled, a key stripped)', () => {
    let checked = 0;
    let rejected = 0;
    for (const record of samples()) {
      const json = JSON.parse(JSON.stringify(record)) as unknown;
      for (const { path, value } of mutations(json)) {
        const candidate = JSON.parse(JSON.stringify(mutate(json, path, value)) ?? 'null') as unknown;
        checked += 1;
        if (!isTrialRecordShape(candidate)) {
          rejected += 1;
          continue;
        }
        const parsed = TrialRecord.safeParse(candidate);
        expect(parsed.success, `shape accepted ${path.join('.')} = ${JSON.stringify(value)}, zod rejects it`).toBe(
          true,
        );
        expect(parsed.data, `zod changes ${path.join('.')} = ${JSON.stringify(value)}`).toEqual(candidate);
      }
    }
    expect(checked).toBeGreaterThan(10_000);
    expect(rejected).toBeGreaterThan(checked / 3);
  });

  it('rejects what is not a record at all', () => {
    for (const value of [null, 1, 'x', [], {}, { v: 2 }]) expect(isTrialRecordShape(value)).toBe(false);
  });
});

describe("isBuiltTrialRecordShape (the runner's records, whose turns and request summaries are checked as they are made)", () => {
  it('agrees with isTrialRecordShape on every record and every mutation but those inside turns and requests', () => {
    let checked = 0;
    for (const record of samples()) {
      const json = JSON.parse(JSON.stringify(record)) as TrialRecord;
      expect(isBuiltTrialRecordShape(json)).toBe(true);
      for (const { path, value } of mutations(json)) {
        const trusted = path[0] === 'turns' || path[0] === 'requests';
        if (trusted && (path.length > 1 || Array.isArray(value))) continue;
        const candidate = JSON.parse(JSON.stringify(mutate(json, path, value)) ?? 'null') as TrialRecord;
        checked += 1;
        expect(isBuiltTrialRecordShape(candidate), `${path.join('.')} = ${JSON.stringify(value)}`).toBe(
          isTrialRecordShape(candidate),
        );
      }
    }
    expect(checked).toBeGreaterThan(5_000);
  });
});
