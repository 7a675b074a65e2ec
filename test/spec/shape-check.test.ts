import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Json, orderedShapeCheck, shapeCheck, shapeCheckFromSource, shapeCheckSource } from '../../src/spec/index.ts';

// shapeCheck(schema)(value) must be true only when schema.parse(value)
// succeeds and returns the value unchanged; false sends the caller to zod.
function agrees(schema: z.ZodType, value: unknown): void {
  const check = shapeCheck(schema);
  const parsed = schema.safeParse(value);
  const unchanged = parsed.success && JSON.stringify(parsed.data) === JSON.stringify(value);
  expect(check(value), JSON.stringify(value)).toBe(unchanged);
}

describe('shapeCheck', () => {
  it('primitives and their checks', () => {
    const count = z.number().int().nonnegative();
    for (const value of [0, 3, -1, 1.5, Number.NaN, Infinity, '3', null, undefined])
      expect(shapeCheck(count)(value)).toBe(count.safeParse(value).success);
    const between = z.number().gt(0).max(1);
    for (const value of [0, 0.5, 1, 1.01]) expect(shapeCheck(between)(value)).toBe(between.safeParse(value).success);
    const code = z
      .string()
      .min(2)
      .max(4)
      .regex(/^[a-z]+$/);
    for (const value of ['ab', 'abcd', 'a', 'abcde', 'AB', 1])
      expect(shapeCheck(code)(value)).toBe(code.safeParse(value).success);
    const kind = z.enum(['a', 'b']);
    for (const value of ['a', 'b', 'c']) expect(shapeCheck(kind)(value)).toBe(kind.safeParse(value).success);
    for (const value of [1, 2, '1']) expect(shapeCheck(z.literal(1))(value)).toBe(value === 1);
  });

  it('objects: a default to fill or a key to strip is not unchanged; strict rejects, loose keeps extra keys', () => {
    const plain = z.object({ a: z.string(), b: z.number().default(1), c: z.boolean().optional(), d: z.unknown() });
    for (const value of [
      { a: 'x', b: 2, d: null },
      { a: 'x', d: 1 },
      { a: 'x', b: 2, d: 1, extra: 1 },
      { a: 'x', b: 2, c: true, d: 1 },
      { a: 'x', b: 2, c: 'no', d: 1 },
      { a: 'x', b: 2 },
      [],
      null,
    ])
      agrees(plain, value);
    const strict = z.strictObject({ a: z.string() });
    for (const value of [{ a: 'x' }, { a: 'x', b: 1 }]) agrees(strict, value);
    const loose = z.looseObject({ a: z.string() });
    expect(shapeCheck(loose)({ a: 'x', b: 1 })).toBe(true);
    expect(shapeCheck(loose)({ b: 1 })).toBe(false);
  });

  it('arrays, records, nullable, discriminated unions, and recursive JSON', () => {
    const list = z.array(z.string()).min(1);
    for (const value of [['a'], [], [1], 'a']) agrees(list, value);
    const map = z.record(z.string(), z.number());
    for (const value of [{}, { a: 1 }, { a: '1' }, [1]]) agrees(map, value);
    const shape = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a'), n: z.number() }),
      z.object({ kind: z.literal('b') }),
    ]);
    for (const value of [{ kind: 'a', n: 1 }, { kind: 'a' }, { kind: 'b' }, { kind: 'b', n: 1 }, { kind: 'c' }])
      agrees(shape, value);
    for (const value of [null, 'x', [1, { a: [true, null] }], { a: { b: [1.5] } }, { a: undefined }, [() => 1]])
      expect(shapeCheck(Json)(value)).toBe(Json.safeParse(value).success);
    agrees(z.string().nullable().default(null), null);
    agrees(z.string().nullable().default(null), undefined);
  });

  it('refuses, when compiled, what it cannot check exactly', () => {
    expect(() => shapeCheck(z.string().transform((text) => text.length))('x')).toThrow(/not supported/);
    expect(() => shapeCheck(z.union([z.object({ a: z.string() }), z.string()]))('x')).toThrow(/union/);
    expect(() => shapeCheck(z.string().email())('a@b.c')).toThrow(/not supported/);
  });

  it('as source, sent to a thread without zod (a structured clone), checks what shapeCheck checks', () => {
    const schema = z.object({
      code: z.string().regex(/^[a-z]+$/i),
      tags: z.array(z.string().min(1)).optional(),
      size: z.number().int().nonnegative().default(0),
    });
    const check = shapeCheckFromSource(structuredClone(shapeCheckSource(schema)));
    const values = [
      { code: 'aB', size: 1 },
      { code: 'a1', size: 1 },
      { code: 'ab', tags: [''], size: 1 },
      { code: 'ab', tags: ['x'], size: 2 },
      { code: 'ab' },
      { code: 'ab', size: 1, extra: true },
    ];
    expect(values.map(check)).toEqual(values.map(shapeCheck(schema)));
    expect(values.map(check)).toEqual([true, false, false, true, false, false]);
  });
});

// orderedShapeCheck(schema)(value) must be true only when schema.parse(value)
// succeeds and its JSON is the value's JSON byte for byte (key order too).
describe('orderedShapeCheck', () => {
  function agreesOrdered(schema: z.ZodType, value: unknown): void {
    const parsed = schema.safeParse(value);
    const same = parsed.success && JSON.stringify(parsed.data) === JSON.stringify(value);
    expect(orderedShapeCheck(schema)(value), JSON.stringify(value)).toBe(same);
  }

  it('objects: the shape’s order, optional keys absent or not, a loose object’s other keys after the shape’s', () => {
    const plain = z.object({ a: z.string(), b: z.number().optional(), c: z.boolean() });
    for (const value of [
      { a: 'x', b: 1, c: true },
      { a: 'x', c: true },
      { c: true, a: 'x' },
      { a: 'x', c: true, b: 1 },
      { b: 1, a: 'x', c: true },
      { a: 'x', b: 1, c: true, d: 1 },
    ])
      agreesOrdered(plain, value);
    const loose = z.looseObject({ a: z.string(), b: z.number().optional() });
    for (const value of [
      { a: 'x', b: 1, extra: 1, more: 2 },
      { a: 'x', extra: 1 },
      { extra: 1, a: 'x' },
      { a: 'x', extra: 1, b: 1 },
      { b: 1, a: 'x' },
    ])
      agreesOrdered(loose, value);
  });

  it('nested: objects in arrays, records and unions are checked in order too', () => {
    const entry = z.object({ id: z.string(), n: z.number() });
    const schema = z.object({
      list: z.array(entry),
      map: z.record(z.string(), entry),
      either: z.discriminatedUnion('kind', [z.object({ kind: z.literal('a'), n: z.number() })]),
    });
    const ordered = {
      list: [{ id: 'a', n: 1 }],
      map: { z: { id: 'b', n: 2 }, a: { id: 'c', n: 3 } },
      either: { kind: 'a', n: 1 },
    };
    agreesOrdered(schema, ordered);
    agreesOrdered(schema, {
      ...ordered,
      list: [
        { id: 'a', n: 1 },
        { n: 2, id: 'b' },
      ],
    });
    agreesOrdered(schema, { ...ordered, map: { a: { n: 3, id: 'c' } } });
    agreesOrdered(schema, { ...ordered, either: { n: 1, kind: 'a' } });
    agreesOrdered(schema, { map: ordered.map, list: ordered.list, either: ordered.either });
  });
});
