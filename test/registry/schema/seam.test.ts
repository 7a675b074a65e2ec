import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as zodV3FromZod4 } from 'zod/v3';
import { z as z3 } from 'zod3';
import { z as z3v3 } from 'zod3/v3';
import { z as z3v4 } from 'zod3/v4';
import {
  anyValueSchema,
  fromJsonSchema,
  isZod3Schema,
  isZod4Schema,
  JsonSchemaError,
  jsonSchema,
  toolSchemaOf,
  type Violation,
} from '../../../src/registry/schema/index.ts';

/**
 * One tool input written four ways: zod 4, zod 3 (the zod3 package, and the
 * `zod/v3` subpaths that zod 3.25 and zod 4 ship), and JSON Schema by hand.
 */
function zodFlavour(zz: typeof z3) {
  return zz
    .object({
      ticket_id: zz
        .string()
        .regex(/^T-\d{3}$/, 'a ticket ID looks like T-102')
        .describe('Ticket ID such as T-102'),
      status: zz.enum(['open', 'waiting']).optional().describe('Only tickets with this status'),
      limit: zz.number().int().min(1).max(5).default(5).describe('Page size'),
      note: zz.string().min(1).max(1000),
      tags: zz.array(zz.string()).max(3).optional(),
      due: zz.string().nullable(),
    })
    .strict();
}

const zod4Input = z.strictObject({
  ticket_id: z
    .string()
    .regex(/^T-\d{3}$/, 'a ticket ID looks like T-102')
    .describe('Ticket ID such as T-102'),
  status: z.enum(['open', 'waiting']).optional().describe('Only tickets with this status'),
  limit: z.number().int().min(1).max(5).default(5).describe('Page size'),
  note: z.string().min(1).max(1000),
  tags: z.array(z.string()).max(3).optional(),
  due: z.string().nullable(),
});

const handWritten = {
  type: 'object',
  properties: {
    ticket_id: { type: 'string', pattern: '^T-\\d{3}$', description: 'Ticket ID such as T-102' },
    status: { description: 'Only tickets with this status', type: 'string', enum: ['open', 'waiting'] },
    limit: { default: 5, description: 'Page size', type: 'integer', minimum: 1, maximum: 5 },
    note: { type: 'string', minLength: 1, maxLength: 1000 },
    tags: { maxItems: 3, type: 'array', items: { type: 'string' } },
    due: { type: ['string', 'null'] },
  },
  required: ['ticket_id', 'note', 'due'],
  additionalProperties: false,
} as const;

const flavours = {
  'zod 4': zod4Input,
  'zod 3': zodFlavour(z3),
  'zod 3.25 zod/v3': zodFlavour(z3v3 as unknown as typeof z3),
  'zod 4 zod/v3': zodFlavour(zodV3FromZod4 as unknown as typeof z3),
  'JSON Schema': handWritten,
} as const;

/** Where a violation is, whatever the notation: `items[0].id` and `/items/0/id` both become `items/0/id`. */
function location(violation: Violation): string {
  if (violation.path === '(root)' || violation.path === '') return '';
  if (violation.path.startsWith('/')) return violation.path.slice(1);
  return violation.path
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/^\./, '')
    .replaceAll('.', '/');
}

describe('the schema seam: one tool, every flavour', () => {
  it('tells the flavours apart at run time', () => {
    expect(isZod4Schema(flavours['zod 4'])).toBe(true);
    expect(isZod4Schema(z3v4.string())).toBe(true);
    for (const name of ['zod 3', 'zod 3.25 zod/v3', 'zod 4 zod/v3'] as const) {
      expect(isZod3Schema(flavours[name]), name).toBe(true);
      expect(isZod4Schema(flavours[name]), name).toBe(false);
    }
    expect(isZod3Schema(flavours['zod 4'])).toBe(false);
  });

  it('gives the model the same payload, byte for byte', () => {
    const payloads = Object.fromEntries(
      Object.entries(flavours).map(([name, schema]) => [name, JSON.stringify(toolSchemaOf(schema).jsonSchema)]),
    );
    for (const name of Object.keys(flavours)) expect(payloads[name], name).toBe(JSON.stringify(handWritten));
  });

  it('accepts the same value and fills the same default', () => {
    for (const [name, schema] of Object.entries(flavours)) {
      expect(toolSchemaOf(schema).validate({ ticket_id: 'T-102', note: 'hi', due: null }), name).toEqual({
        ok: true,
        value: { ticket_id: 'T-102', note: 'hi', due: null, limit: 5 },
      });
    }
  });

  it('finds the same violations in the same places', () => {
    const bad = {
      ticket_id: 'x',
      status: 'closed',
      limit: 9,
      note: '',
      tags: ['a', 'b', 'c', 'd'],
      due: 3,
      extra: true,
    };
    const expected = ['', 'due', 'limit', 'note', 'status', 'tags', 'ticket_id'];
    for (const [name, schema] of Object.entries(flavours)) {
      const result = toolSchemaOf(schema).validate(bad);
      expect(result.ok, name).toBe(false);
      if (result.ok) continue;
      expect([...new Set(result.violations.map(location))].sort(), name).toEqual(expected);
    }
  });

  it('says what was expected where a JSON Schema message would not (allowed values, type, known keys)', () => {
    const result = toolSchemaOf(handWritten).validate({ ticket_id: 'T-102', status: 'closed', due: 3, extra: 1 });
    expect(result).toEqual({
      ok: false,
      violations: [
        { path: '/note', message: 'required property "note" is missing', expected: 'string' },
        {
          path: '',
          message: 'unrecognized key "extra"',
          expected: ['ticket_id', 'status', 'limit', 'note', 'tags', 'due'],
        },
        { path: '/status', message: 'must be equal to one of the allowed values', expected: ['open', 'waiting'] },
        { path: '/due', message: 'must be string,null', expected: ['string', 'null'] },
      ],
    });
  });

  it('keeps zod violations as path and zod message only (what the shipped cassettes were recorded with)', () => {
    const result = toolSchemaOf(zod4Input).validate({ ticket_id: 'T-102', status: 'closed', note: 'n', due: null });
    expect(result).toEqual({
      ok: false,
      violations: [{ path: 'status', message: 'Invalid option: expected one of "open"|"waiting"' }],
    });
    const zod3Result = toolSchemaOf(flavours['zod 3']).validate({
      ticket_id: 'T-102',
      status: 'closed',
      note: 'n',
      due: null,
    });
    expect(zod3Result).toEqual({
      ok: false,
      violations: [{ path: 'status', message: "Invalid enum value. Expected 'open' | 'waiting', received 'closed'" }],
    });
  });

  it('never changes the value it validates (approvals are fingerprinted over the arguments as sent)', () => {
    const args = { ticket_id: 'T-102', note: 'hi', due: null };
    toolSchemaOf(handWritten).validate(args);
    expect(args).toEqual({ ticket_id: 'T-102', note: 'hi', due: null });
  });

  it('hands out a frozen payload and adapts each schema object once', () => {
    expect(toolSchemaOf(handWritten)).toBe(toolSchemaOf(handWritten));
    expect(() => {
      (toolSchemaOf(zod4Input).jsonSchema as Record<string, unknown>).type = 'array';
    }).toThrow(TypeError);
  });

  it('takes a zod 4 schema from another copy of zod 4 (zod 3.25 ships one as zod/v4)', () => {
    const schema = toolSchemaOf(z3v4.object({ id: z3v4.string().describe('id') }));
    expect(schema.jsonSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'string', description: 'id' } },
      required: ['id'],
    });
    expect(schema.validate({ id: 1 }).ok).toBe(false);
  });
});

describe('plain JSON Schema: drafts and formats', () => {
  it('defaults to 2020-12 and strips $schema from the payload', () => {
    const schema = fromJsonSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
    });
    expect(schema.jsonSchema).toEqual({ type: 'array', prefixItems: [{ type: 'string' }] });
  });

  it('2020-12: prefixItems, dependentRequired, unevaluatedProperties', () => {
    const schema = fromJsonSchema({
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
        card: { type: 'string' },
        cvc: { type: 'string' },
      },
      dependentRequired: { card: ['cvc'] },
      unevaluatedProperties: false,
    });
    expect(schema.validate({ pair: ['a', 1] }).ok).toBe(true);
    const bad = schema.validate({ pair: ['a', 'b', 3], card: '4242', other: 1 });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.violations.map((violation) => violation.path).sort()).toEqual(['', '', '/pair', '/pair/1'].sort());
    expect(bad.violations.map((violation) => violation.message)).toContain(
      'must have property cvc when property card is present',
    );
  });

  it('draft-07 (chosen by $schema): items as a list, additionalItems, dependencies, definitions', () => {
    const schema = fromJsonSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { id: { type: 'string', minLength: 2 } },
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ $ref: '#/definitions/id' }, { type: 'integer' }], additionalItems: false },
      },
      dependencies: { card: ['cvc'] },
    });
    expect(schema.validate({ pair: ['ab', 1] }).ok).toBe(true);
    const bad = schema.validate({ pair: ['a', 1, 2], card: 'x' });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.violations.map((violation) => violation.path).sort()).toEqual(['', '/pair', '/pair/0'].sort());
  });

  it('2019-09 too, and an unknown $schema is refused with the drafts it could be', () => {
    expect(
      fromJsonSchema({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'string' }).validate('x').ok,
    ).toBe(true);
    expect(() => fromJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' })).toThrow(
      JsonSchemaError,
    );
    try {
      fromJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' });
    } catch (error) {
      expect((error as JsonSchemaError).expected).toContain('draft-07');
    }
  });

  it('checks formats (email, date-time, uuid, uri, date)', () => {
    const schema = fromJsonSchema({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        at: { type: 'string', format: 'date-time' },
        id: { type: 'string', format: 'uuid' },
        link: { type: 'string', format: 'uri' },
        day: { type: 'string', format: 'date' },
      },
    });
    expect(
      schema.validate({
        email: 'a@b.co',
        at: '2026-12-01T20:00:00Z',
        id: '0b8c0f0e-5a2b-4c3d-9e8f-1a2b3c4d5e6f',
        link: 'https://example.com/x',
        day: '2026-02-28',
      }).ok,
    ).toBe(true);
    const bad = schema.validate({ email: 'nope', at: 'yesterday', id: '42', link: 'not a uri', day: '2026-02-30' });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.violations).toEqual([
      { path: '/email', message: 'must match format "email"' },
      { path: '/at', message: 'must match format "date-time"' },
      { path: '/id', message: 'must match format "uuid"' },
      { path: '/link', message: 'must match format "uri"' },
      { path: '/day', message: 'must match format "date"' },
    ]);
  });

  it('refuses a typo of a keyword (strict), unless told the schema carries vendor keywords', () => {
    expect(() => fromJsonSchema({ type: 'object', requried: ['a'] })).toThrow(/unknown keyword: "requried"/);
    expect(fromJsonSchema({ type: 'object', 'x-vendor': 1 }, { strict: false }).validate({}).ok).toBe(true);
    expect(toolSchemaOf(jsonSchema({ type: 'object', 'x-vendor': 1 }, { strict: false })).validate({}).ok).toBe(true);
  });

  it('the any-value schema (no ajv) validates as ajv does with {}: every value, as a copy', () => {
    const ajv = fromJsonSchema({});
    const plain = anyValueSchema();
    expect(plain.jsonSchema).toEqual(ajv.jsonSchema);
    for (const value of [{ a: [1, { b: null }] }, 'text', 0, null, [], true]) {
      const [mine, theirs] = [plain.validate(value), ajv.validate(value)];
      expect(mine).toEqual(theirs);
      expect(mine).toEqual({ ok: true, value });
      if (typeof value === 'object' && value !== null && mine.ok) expect(mine.value).not.toBe(value);
    }
  });

  it('JSON pointers escape ~ and /', () => {
    const result = fromJsonSchema({
      type: 'object',
      properties: { 'a/b': { type: 'string' } },
      required: ['a/b', 'c~d'],
    }).validate({ 'a/b': 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations.map((violation) => violation.path)).toEqual(['/c~0d', '/a~1b']);
  });

  it('refuses what is no schema at all, and a non-zod Standard Schema', () => {
    expect(() => toolSchemaOf('string' as never)).toThrow(/not a schema/);
    expect(() => toolSchemaOf({ '~standard': { vendor: 'valibot', version: 1 } } as never)).toThrow(/valibot/);
  });
});
