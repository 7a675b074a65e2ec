import { describe, expect, it } from 'vitest';
import { cloneValue } from '../../src/registry/schema/clone-value.ts';

// cloneValue must give what structuredClone gives (its fast walk covers only plain trees):
// the same value, key order, prototypes, sharing, sparseness and errors.

function sameAsStructuredClone(value: unknown): void {
  const expected = structuredClone(value);
  const actual = cloneValue(value);
  expect(actual).toStrictEqual(expected);
  if (actual !== null && typeof actual === 'object') {
    expect(actual).not.toBe(value);
    expect(Object.getPrototypeOf(actual)).toBe(Object.getPrototypeOf(expected));
    expect(Reflect.ownKeys(actual)).toEqual(Reflect.ownKeys(expected as object));
  }
}

const shared = { id: 1 };
const cyclic: Record<string, unknown> = { name: 'loop' };
cyclic.self = cyclic;
// A hole at index 1.
const sparse = [1, , 3];
const named = Object.assign([1, 2], { extra: true });
const nullPrototype = Object.assign(Object.create(null) as object, { b: 1, a: 2 });
const protoKey = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
class Point {
  constructor(
    public x = 1,
    public y = 2,
  ) {}
}

const values: [string, unknown][] = [
  ['primitives', [null, undefined, true, 0, -0, NaN, Infinity, 1.5, 'text', 10n]],
  ['tool arguments', { city: 'Town 0', unit: 'celsius', nested: { list: [1, 'two', { three: 3 }] } }],
  ['integer-like keys (their order)', { b: 1, 2: 'two', a: 3, 1: 'one' }],
  ['undefined properties kept', { a: undefined, b: [undefined] }],
  ['a part reached twice stays shared', { first: shared, second: shared }],
  ['a cycle', cyclic],
  ['a sparse array', sparse],
  ['an array with a named property', named],
  ['a null-prototype object', nullPrototype],
  ['an own __proto__ key', protoKey],
  ['a class instance', new Point()],
  ['a date and a map', { when: new Date(0), map: new Map([['k', 1]]) }],
  ['a boxed primitive', { boxed: Object(1) as object }],
  ['a long array', Array.from({ length: 1000 }, (_, index) => index)],
  ['many objects', Array.from({ length: 100 }, (_, index) => ({ index }))],
];

describe('cloneValue', () => {
  it.each(values)('%s: what structuredClone makes', (_name, value) => sameAsStructuredClone(value));

  it('keeps sharing and cycles as structuredClone does', () => {
    const both = cloneValue({ first: shared, second: shared });
    expect(both.first).toBe(both.second);
    const loop = cloneValue(cyclic);
    expect(loop.self).toBe(loop);
  });

  it('an own __proto__ key stays a property, not the prototype', () => {
    const copy = cloneValue(protoKey) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
  });

  it('a copy is independent of the value', () => {
    const value = { list: [{ a: 1 }] };
    const copy = cloneValue(value);
    copy.list[0]!.a = 2;
    copy.list.push({ a: 3 });
    expect(value).toEqual({ list: [{ a: 1 }] });
  });

  it('refuses what structuredClone refuses, with its error', () => {
    for (const value of [() => 1, { handler: () => 1 }, [Symbol('s')], { proxy: new Proxy({}, {}) }]) {
      let expected: unknown;
      try {
        structuredClone(value);
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(Error);
      expect(() => cloneValue(value)).toThrow((expected as Error).message);
    }
  });
});
