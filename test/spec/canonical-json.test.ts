import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/spec/index.ts';

/**
 * The definition canonicalJson was first written as (keys().filter().sort().map(), join):
 * the faster loops must give exactly its text, since cassette hashes and approval
 * fingerprints already recorded were made with it.
 */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
  return `{${entries.join(',')}}`;
}

const manyKeys = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`k${(index * 7919) % 97}`, index]));

const values: [string, unknown][] = [
  ['scalars', [1, -0, 1.5e300, 'text', '', true, false, null]],
  ['numbers JSON writes its own way', [NaN, Infinity, -Infinity, 1e21, -1e-7, 5e-324, 0.1 + 0.2, 2 ** 53 + 2]],
  [
    'the same keys again (their quoted form is reused)',
    [
      { role: 'a"b', 'a"b': 1 },
      { role: 2, 'a"b': [{ role: 3 }] },
    ],
  ],
  ['keys out of order, nested', { b: { d: 1, c: [2, { z: 0, a: 'x' }] }, a: null }],
  [
    'undefined properties left out, at the start, middle and end',
    { u: undefined, a: 1, m: undefined, b: 2, z: undefined },
  ],
  ['only undefined properties', { a: undefined }],
  ['undefined, functions and symbols as items', [undefined, () => 1, Symbol('s'), 3]],
  ['a function property', { f: () => 1, a: 1 }],
  ['holes stay empty', [1, , 3, , ,]],
  ['keys needing escapes and beyond ASCII', { é: 1, Z: 2, 'a"b': 3, '\n': 4, '😀': 5, ä: 6 }],
  ['numeric-looking keys', { 10: 'a', 2: 'b', '01': 'c', b: 'd' }],
  ['more keys than the insertion sort takes', manyKeys],
  ['a date and a map (no own keys)', { when: new Date(0), map: new Map([[1, 2]]) }],
  ['a model turn', { role: 'assistant', content: null, tool_calls: [{ id: 'c', name: 'get', arguments: '{"x":1}' }] }],
  ['top-level undefined and function', undefined],
];

describe('canonicalJson', () => {
  it.each(values)('%s: the same text as its first definition', (_name, value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('gives the same text past the bound of the keys it remembers', () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`key ${index} "${index % 7}"`, index]));
    expect(canonicalJson(many)).toBe(reference(many));
    expect(canonicalJson([many, many])).toBe(reference([many, many]));
  });

  it('sorts keys and drops whitespace', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":3,"d":2}]}');
  });

  it('leaves its input unchanged (keys are sorted in a copy)', () => {
    const value = { b: 1, a: 2 };
    canonicalJson(value);
    expect(Object.keys(value)).toEqual(['b', 'a']);
  });
});
