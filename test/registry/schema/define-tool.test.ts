import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  createRegistry,
  defineTool,
  defineToolFor,
  fail,
  jsonSchema,
  MemoryReceiptStore,
  toolErrorFor,
  type ErrorTable,
  type HandlerContext,
} from '../../../src/registry/index.ts';
import type { ActionSpec } from '../../../src/spec/index.ts';

/**
 * `defineTool` types a handler from its schemas, whichever kind they are:
 * the assertions on types are checked by `tsc` (the test type-checks with
 * the rest of the repo), the run-time ones by vitest.
 */

interface Shelf {
  books: Map<string, { title: string; copies: number }>;
}

const ERRORS = { book_not_found: { category: 'not_found' } } as const satisfies ErrorTable;
const toolError = toolErrorFor(ERRORS);

const ACTIONS: ActionSpec[] = [
  {
    id: 'book.get',
    description: 'Read a book',
    effect: 'read',
    permission: 'book:read',
    approval: 'never',
    idempotency_key: null,
  },
];

describe('defineTool', () => {
  it('types the handler from a zod 4 schema (output side: defaults applied)', () => {
    const tool = defineTool({
      name: 'book.get',
      description: 'Read one book.',
      input: z.object({ id: z.string(), copies: z.number().int().default(1) }),
      output: z.object({ title: z.string() }),
      handler(input, { state }: HandlerContext<Shelf>) {
        expectTypeOf(input).toEqualTypeOf<{ id: string; copies: number }>();
        const book = state.books.get(input.id);
        return book ? { title: book.title } : fail(toolError('book_not_found', `No book ${input.id}.`));
      },
    });
    expectTypeOf(tool.handler).parameter(1).toEqualTypeOf<HandlerContext<Shelf>>();
  });

  it('types the handler from a zod 3 schema', () => {
    defineToolFor<Shelf>()({
      name: 'book.get',
      description: 'Read one book.',
      input: z3.object({ id: z3.string(), tags: z3.array(z3.string()).optional() }),
      output: z3.object({ title: z3.string() }),
      handler(input, { state }) {
        expectTypeOf(input).toEqualTypeOf<{ id: string; tags?: string[] | undefined }>();
        expectTypeOf(state).toEqualTypeOf<Shelf>();
        return { title: input.id };
      },
    });
  });

  it('types the handler from a JSON Schema literal: required, optional, defaulted, enum, nested, arrays', () => {
    defineToolFor<Shelf>()({
      name: 'book.search',
      description: 'Search books.',
      input: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer', default: 5 },
          sort: { enum: ['title', 'copies'] },
          filter: { type: 'object', properties: { author: { type: 'string' } }, required: ['author'] },
          tags: { type: 'array', items: { type: 'string' } },
          note: { type: ['string', 'null'] },
        },
        required: ['query'],
      },
      output: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } }, required: ['ids'] },
      handler(input) {
        expectTypeOf(input).toEqualTypeOf<{
          query: string;
          limit: number;
          sort?: 'title' | 'copies';
          filter?: { author: string };
          tags?: string[];
          note?: string | null;
        }>();
        return { ids: [input.query] };
      },
    });
  });

  it('takes a JSON Schema typed by hand with jsonSchema<T>()', () => {
    defineTool({
      name: 'book.raw',
      description: 'Anything.',
      input: jsonSchema<{ id: string }>(
        { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], 'x-source': 'mcp' },
        { strict: false },
      ),
      output: {},
      handler(input) {
        expectTypeOf(input).toEqualTypeOf<{ id: string }>();
        return input.id;
      },
    });
  });

  it('a JSON Schema tool runs through the registry: defaults filled for the handler, violations as JSON pointers', async () => {
    const tool = defineToolFor<Shelf>()({
      name: 'book.get',
      description: 'Read one book.',
      input: {
        type: 'object',
        properties: { id: { type: 'string', pattern: '^B-\\d+$' }, copies: { type: 'integer', default: 1 } },
        required: ['id'],
        additionalProperties: false,
      },
      output: {
        type: 'object',
        properties: { title: { type: 'string' }, copies: { type: 'integer' } },
        required: ['title', 'copies'],
      },
      handler(input, { state }) {
        const book = state.books.get(input.id);
        return book
          ? { title: book.title, copies: input.copies }
          : fail(toolError('book_not_found', `No book ${input.id}.`, { id: input.id }));
      },
    });
    const registry = createRegistry([tool], ACTIONS);
    const context = {
      state: { books: new Map([['B-1', { title: 'Dune', copies: 2 }]]) },
      actor: { id: 'u', permissions: ['book:read'] },
      approvals: [],
      effects: [],
      receipts: new MemoryReceiptStore(),
    };
    const args = { id: 'B-1' };
    expect(await registry.invoke({ tool: 'book.get', arguments: args }, context)).toEqual({
      ok: true,
      output: { title: 'Dune', copies: 1 },
      replayed: false,
    });
    expect(args).toEqual({ id: 'B-1' });
    expect(await registry.invoke({ tool: 'book.get', arguments: { id: 'B-9' } }, context)).toEqual({
      ok: false,
      error: {
        code: 'book_not_found',
        category: 'not_found',
        message: 'No book B-9.',
        retryable: false,
        details: { id: 'B-9' },
      },
    });
    expect(
      await registry.invoke({ tool: 'book.get', arguments: { id: 'x', copies: 'two', more: 1 } }, context),
    ).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_arguments',
        details: {
          violations: [
            { path: '', message: 'unrecognized key "more"', expected: ['id', 'copies'] },
            { path: '/id', message: 'must match pattern "^B-\\d+$"' },
            { path: '/copies', message: 'must be integer', expected: 'integer' },
          ],
        },
      },
    });
    // The contract is the action's: no book:read, no call.
    const denied = await registry.invoke(
      { tool: 'book.get', arguments: args },
      { ...context, actor: { id: 'u', permissions: [] } },
    );
    expect(denied).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
  });

  it("toolErrorFor knows the domain's codes and the framework's, and no others", () => {
    expect(toolError('book_not_found', 'gone')).toEqual({
      code: 'book_not_found',
      category: 'not_found',
      message: 'gone',
      retryable: false,
      details: {},
    });
    expect(toolError('invalid_cursor', 'bad cursor')).toMatchObject({ category: 'validation' });
    // @ts-expect-error an undeclared code does not type-check …
    expect(() => toolError('book_lost', 'x')).toThrow(/declared neither by toolmark nor by this domain/);
  });
});
