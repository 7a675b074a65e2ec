import { z } from 'zod';
import type { JsonSchema } from '../../spec/index.ts';
import { frozen, type ToolSchema, type Validation } from './tool-schema.ts';
import { violationsOfZodIssues } from './zod-issues.ts';

/** Structurally, a zod 4 schema (classic or mini, any copy of zod 4, incl. `zod/v4` of zod 3.25). */
export interface Zod4Schema<T = unknown> {
  readonly _zod: { readonly output: T; readonly def: unknown };
}

/** A zod 4 schema carries `_zod` (its internals); zod 3 carries only `_def`. */
export function isZod4Schema(value: unknown): value is Zod4Schema {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as { _zod: unknown })._zod === 'object'
  );
}

/**
 * `.describe()` texts live in the registry of the zod copy that made the
 * schema; another copy of zod 4 (zod 3.25's `zod/v4`) keeps its own, which
 * our `toJSONSchema` cannot see. Its schemas still answer `.description`, so
 * take it from there. (For our own copy the description is already set, so
 * nothing changes.)
 */
function describeForeign(context: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const description = (context.zodSchema as { description?: unknown }).description;
  if (typeof description === 'string' && context.jsonSchema.description === undefined)
    context.jsonSchema.description = description;
}

/**
 * The JSON Schema a model is shown for a zod 4 schema: `z.toJSONSchema` on
 * the input side, `$schema` removed, unrepresentable parts (a transform's
 * output, a custom refinement) shown as "anything".
 */
export function zod4JsonSchema(schema: Zod4Schema): JsonSchema {
  const converted = z.toJSONSchema(schema as unknown as z.ZodType, {
    io: 'input',
    unrepresentable: 'any',
    override: describeForeign,
  }) as JsonSchema;
  delete converted.$schema;
  return converted;
}

/**
 * Adapt a zod 4 schema. Validation is zod's own `safeParse` (so refinements,
 * defaults and transforms run as the author wrote them); the JSON Schema is
 * made on first use, since output schemas never need one.
 */
export function fromZod4<T>(schema: Zod4Schema<T>): ToolSchema<T> {
  // Classic schemas parse themselves (with their own copy's messages); zod/mini ones have no methods.
  const own = (schema as unknown as Partial<z.ZodType<T>>).safeParse;
  const parse =
    typeof own === 'function'
      ? own.bind(schema)
      : (value: unknown) => z.safeParse(schema as unknown as z.ZodType<T>, value);
  let jsonSchema: JsonSchema | undefined;
  return {
    get jsonSchema() {
      return (jsonSchema ??= frozen(zod4JsonSchema(schema)));
    },
    validate(value: unknown): Validation<T> {
      const parsed = parse(value);
      if (parsed.success) return { ok: true, value: parsed.data };
      return { ok: false, violations: violationsOfZodIssues(parsed.error.issues) };
    },
  };
}
