import { describe, expect, it } from 'vitest';
import { asksQuestion, matchConstraint, matchFields } from '../../src/score/index.ts';

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
    expect(matchFields({ ticket_id: 'T-1', note: { contains: 'call' } }, { ticket_id: 'T-2', note: 'will call back', extra: 1 })).toEqual({
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
