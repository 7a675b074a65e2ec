import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Ajv as AjvCore } from 'ajv';
import { isPlainlyMetaValid } from '../../../src/registry/schema/meta-valid.ts';
import { fromJsonSchema, JsonSchemaError } from '../../../src/registry/schema/index.ts';
import type { JsonSchema } from '../../../src/spec/index.ts';

// `isPlainlyMetaValid` lets fromJsonSchema skip ajv's meta-schema check
// (src/registry/schema/meta-valid.ts). It may say false to anything, but
// true only for a schema that ajv's 2020-12 meta-schema accepts.

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as new (options: object) => AjvCore;
const addFormats = require('ajv-formats').default as (ajv: AjvCore) => AjvCore;
const reference = addFormats(new Ajv2020({ strictSchema: false, logger: false }));

const leaf = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    'string',
    'object',
    'integer',
    'strin',
    'date-time',
    Infinity,
    -1,
    0,
    0.5,
    ['string', 'null'],
    ['string', 'string'],
    [],
    ['a', 'b'],
    ['a', 'a'],
    [1],
    {},
  ),
);
// The keywords the fast path knows, and some it leaves to ajv.
const KEYS = (
  'type properties required enum const default description title format items additionalProperties ' +
  'minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength minItems maxItems ' +
  'minProperties maxProperties uniqueItems pattern $ref $schema examples prefixItems not x-vendor'
).split(' ');
const { schema } = fc.letrec((tie) => ({
  schema: fc.dictionary(
    fc.constantFrom(...KEYS),
    fc.oneof(
      { depthSize: 'small' },
      leaf,
      tie('schema'),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(tie('schema'), fc.boolean(), leaf), { maxKeys: 3 }),
    ),
    { maxKeys: 5 },
  ),
}));

describe('schemas valid against the meta-schema by their shape', () => {
  it('are only ever ones ajv accepts', () => {
    let plain = 0;
    fc.assert(
      fc.property(schema, (candidate) => {
        if (!isPlainlyMetaValid(candidate)) return;
        plain++;
        expect(reference.validateSchema(candidate), JSON.stringify(candidate)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the fast path often enough for the property to mean something.
    expect(plain).toBeGreaterThan(100);
  });

  it('cover the schemas of an OpenAI tools file, and nothing with a $ keyword or a pattern', () => {
    const tool = {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. Paris' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: ['integer', 'null'], minimum: 1, maximum: 14 },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
      required: ['city'],
      additionalProperties: false,
    };
    expect(isPlainlyMetaValid(tool)).toBe(true);
    expect(isPlainlyMetaValid({ ...tool, $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe(false);
    expect(isPlainlyMetaValid({ type: 'string', pattern: '^a' })).toBe(false);
    expect(isPlainlyMetaValid({ type: 'strin' })).toBe(false);
    expect(isPlainlyMetaValid({ required: ['a', 'a'] })).toBe(false);
    expect(isPlainlyMetaValid({ minimum: Infinity })).toBe(false);
  });

  it('compile to the same checks, and an invalid schema is refused with the same error as before', () => {
    const good: JsonSchema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, default: 3 } },
      required: ['m'],
    };
    const checked = fromJsonSchema(good);
    expect(checked.validate({ m: 1 })).toEqual({ ok: true, value: { m: 1, n: 3 } });
    expect(checked.validate({ n: 0 })).toMatchObject({ ok: false });
    // Not plain (a wrong type name): ajv's own meta-schema check words it.
    expect(() => fromJsonSchema({ type: 'strin' } as JsonSchema)).toThrow(JsonSchemaError);
    expect(() => fromJsonSchema({ type: 'strin' } as JsonSchema)).toThrow(
      /schema is invalid: data\/type must be equal/,
    );
  });
});
