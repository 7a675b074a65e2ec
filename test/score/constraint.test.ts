import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { asksQuestion, jsonEqual, matchConstraint, matchFields } from '../../src/score/index.ts';
import { canonicalJson } from '../../src/spec/index.ts';

describe('matchConstraint', () => {
  it('literal: deep equality, key order ignored, types respected', () => {
    expect(matchConstraint('T-102', 'T-102')).toBe(true);
    expect(matchConstraint('T-102', 'T-103')).toBe(false);
    expect(matchConstraint(3, '3')).toBe(false);
    expect(matchConstraint({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(matchConstraint({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(matchConstraint([1, 2], [2, 1])).toBe(false);
    expect(matchConstraint(null, null)).toBe(true);
    expect(matchConstraint(null, undefined)).toBe(false);
  });

  it('regex on strings and other scalars', () => {
    expect(matchConstraint({ regex: '^T-10[0-9]$' }, 'T-102')).toBe(true);
    expect(matchConstraint({ regex: '^T-10[0-9]$' }, 'T-112')).toBe(false);
    expect(matchConstraint({ regex: '^5$' }, 5)).toBe(true);
    expect(matchConstraint({ regex: '.*' }, undefined)).toBe(false);
    expect(matchConstraint({ regex: '.*' }, { a: 1 })).toBe(false);
  });

  it('one_of, contains, any', () => {
    expect(matchConstraint({ one_of: ['open', 'waiting'] }, 'waiting')).toBe(true);
    expect(matchConstraint({ one_of: ['open', 'waiting'] }, 'closed')).toBe(false);
    expect(matchConstraint({ one_of: [{ a: 1 }] }, { a: 1 })).toBe(true);
    expect(matchConstraint({ contains: 'refund' }, 'Customer asked for a REFUND today')).toBe(true);
    expect(matchConstraint({ contains: 'refund' }, 'nothing')).toBe(false);
    expect(matchConstraint({ contains: 'T-101' }, ['T-100', 'T-101'])).toBe(true);
    expect(matchConstraint({ any: true }, 0)).toBe(true);
    expect(matchConstraint({ any: true }, null)).toBe(true);
    expect(matchConstraint({ any: true }, undefined)).toBe(false);
  });
});

describe('matchFields', () => {
  it('reports each mismatching field; extra fields are allowed', () => {
    expect(
      matchFields(
        { ticket_id: 'T-1', note: { contains: 'call' } },
        { ticket_id: 'T-2', note: 'will call back', extra: 1 },
      ),
    ).toEqual({
      pass: false,
      mismatches: [{ field: 'ticket_id', expected: 'T-1', actual: 'T-2' }],
    });
  });

  it('missing fields and non-object arguments fail non-empty constraints', () => {
    expect(matchFields({ ticket_id: 'T-1' }, {}).pass).toBe(false);
    expect(matchFields({ ticket_id: 'T-1' }, null).pass).toBe(false);
    expect(matchFields({}, null).pass).toBe(true);
  });
});

describe('asksQuestion', () => {
  it('finds a question ending a sentence, not a "?" inside a token', () => {
    expect(asksQuestion('Which ticket do you mean?')).toBe(true);
    expect(asksQuestion('Which ticket? I can look it up.')).toBe(true);
    expect(asksQuestion('See https://x.test/?q=1 for details.')).toBe(false);
    expect(asksQuestion('Done.')).toBe(false);
    expect(asksQuestion(null)).toBe(false);
  });
});

describe('jsonEqual', () => {
  // Values with near-misses on purpose: few keys and scalars, so equal pairs and one-off differences both occur.
  const scalar = fc.oneof(
    fc.constantFrom('a', 'b', '', '"', 0, -0, 1, 1.5, true, false, null, Number.NaN, Number.POSITIVE_INFINITY),
    fc.constant(undefined),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      scalar,
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
    ),
  })).node;
  /** The same value with every object's keys in reverse order (a different insertion order). */
  const reordered = (input: unknown): unknown => {
    if (Array.isArray(input)) return input.map(reordered);
    if (input === null || typeof input !== 'object') return input;
    return Object.fromEntries(
      Object.entries(input)
        .reverse()
        .map(([key, inner]) => [key, reordered(inner)]),
    );
  };
  const byText = (left: unknown, right: unknown) =>
    left === undefined || right === undefined ? left === right : canonicalJson(left) === canonicalJson(right);

  it('is true exactly when the canonical JSON texts are equal', () => {
    fc.assert(
      fc.property(value, value, (left, right) => {
        expect(jsonEqual(left, right)).toBe(byText(left, right));
        expect(jsonEqual(left, reordered(left))).toBe(true);
        expect(jsonEqual(reordered(right), left)).toBe(byText(left, right));
      }),
      { numRuns: 2000 },
    );
  });

  it('handles keys whose value is undefined like canonical JSON (left out)', () => {
    expect(jsonEqual({ a: null }, { a: undefined, b: 1 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: undefined }, {})).toBe(true);
    expect(jsonEqual([undefined], [null])).toBe(true);
    expect(jsonEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});
