/**
 * The schema seam (SPEC §9): a tool's input and output as `ToolSchema`
 * (`{ jsonSchema, validate }`), with adapters for zod 4, zod 3 and plain
 * JSON Schema (ajv 8 + ajv-formats). See docs/registry.md.
 */
export { isToolSchema } from './tool-schema.ts';
export type { ToolSchema, Validation, Violation } from './tool-schema.ts';
export { jsonSchema, jsonSchemaOf, SchemaSourceError, toolSchemaOf } from './adapt.ts';
export type { InferSchema, JsonSchemaObject, SchemaSource, TypedJsonSchema } from './adapt.ts';
export { anyValueSchema, draftOf, fromJsonSchema, JsonSchemaError } from './json-schema.ts';
export type { JsonSchemaDraft, JsonSchemaOptions } from './json-schema.ts';
export type { InferJsonSchema } from './json-schema-type.ts';
export { fromZod3, isZod3Schema } from './zod3.ts';
export type { Zod3Schema } from './zod3.ts';
export { fromZod4, isZod4Schema } from './zod4.ts';
export type { Zod4Schema } from './zod4.ts';
