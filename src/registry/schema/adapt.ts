import type { JsonSchema } from '../../spec/index.ts';
import { fromJsonSchema, JsonSchemaError, type JsonSchemaOptions } from './json-schema.ts';
import type { InferJsonSchema } from './json-schema-type.ts';
import { isToolSchema, type ToolSchema } from './tool-schema.ts';
import { fromZod3, isZod3Schema, type Zod3Schema } from './zod3.ts';
import { fromZod4, isZod4Schema, type Zod4Schema } from './zod4.ts';

declare const described: unique symbol;

/** A plain JSON Schema tagged with the type it describes (type-only: nothing is added at run time). */
export type TypedJsonSchema<T> = JsonSchema & { readonly [described]?: T };

/** A plain JSON Schema object as a domain writes it (read-only literals welcome). */
export type JsonSchemaObject = { readonly [keyword: string]: unknown };

/**
 * What a tool's `input` or `output` may be: a zod 4 schema, a zod 3 schema
 * (or `zod/v3`), a plain JSON Schema object, or a ready `ToolSchema`.
 */
export type SchemaSource<T = any> =
  ToolSchema<T> | Zod4Schema<T> | Zod3Schema<T> | TypedJsonSchema<T> | JsonSchemaObject;

/** The value type a schema validates to (for zod: its output, defaults applied). */
export type InferSchema<S> =
  S extends ToolSchema<infer T>
    ? T
    : S extends { readonly _zod: { readonly output: infer O } }
      ? O
      : S extends { readonly _def: unknown; readonly _output: infer O }
        ? O
        : S extends { readonly [described]?: infer T }
          ? unknown extends T
            ? InferJsonSchema<S>
            : T
          : InferJsonSchema<S>;

/**
 * Tag a plain JSON Schema with its type, for a handler typed by hand:
 * `input: jsonSchema<{ ticket_id: string }>({ type: 'object', … })`. Without
 * a type argument the type is read off the literal (json-schema-type.ts).
 * Returns the schema itself; validation options go in `options`.
 */
export function jsonSchema<T = never, const S extends JsonSchemaObject = JsonSchemaObject>(
  schema: S,
  options?: JsonSchemaOptions,
): TypedJsonSchema<[T] extends [never] ? InferJsonSchema<S> : T> {
  if (options) jsonSchemaOptions.set(schema, options);
  return schema as unknown as TypedJsonSchema<[T] extends [never] ? InferJsonSchema<S> : T>;
}

// Per schema object: options given with `jsonSchema(schema, options)`, and
// the adapted seam. Domains share one tool definition across every trial's
// registry, so each schema is adapted (and compiled) once per process.
const jsonSchemaOptions = new WeakMap<object, JsonSchemaOptions>();
const adapted = new WeakMap<object, ToolSchema>();

/** A schema source that is none of the supported kinds. */
export class SchemaSourceError extends JsonSchemaError {}

const EXPECTED_SOURCE =
  'a zod 4 schema, a zod 3 schema, a JSON Schema object ({ "type": "object", … }) or a ToolSchema';

function adapt(source: unknown): ToolSchema {
  if (isToolSchema(source)) return source;
  if (isZod4Schema(source)) return fromZod4(source);
  if (isZod3Schema(source)) return fromZod3(source);
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new SchemaSourceError(
      `is ${source === null ? 'null' : Array.isArray(source) ? 'a list' : typeof source}, not a schema`,
      EXPECTED_SOURCE,
    );
  }
  const vendor = (source as { '~standard'?: { vendor?: unknown } })['~standard']?.vendor;
  if (vendor !== undefined)
    throw new SchemaSourceError(`is a ${String(vendor)} schema, which toolmark does not adapt`, EXPECTED_SOURCE);
  return fromJsonSchema(source as JsonSchema, jsonSchemaOptions.get(source));
}

/**
 * The seam for any schema a tool may declare, adapted once per schema
 * object. Throws `JsonSchemaError` for a source that cannot be used (the
 * loader reports it on the tool's field before any model call).
 */
export function toolSchemaOf<S extends SchemaSource>(source: S): ToolSchema<InferSchema<S>> {
  let schema = adapted.get(source as object);
  if (!schema) {
    schema = adapt(source);
    adapted.set(source as object, schema);
  }
  return schema as ToolSchema<InferSchema<S>>;
}

/** The JSON Schema a model is shown for a schema source: a fresh copy, the caller's to change. */
export function jsonSchemaOf(source: SchemaSource): JsonSchema {
  return structuredClone(toolSchemaOf(source).jsonSchema) as JsonSchema;
}
