import type { Ajv as AjvCore, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../spec/index.ts';
import { frozen, type ToolSchema, type Validation, type Violation } from './tool-schema.ts';
import { linearPatternEngine } from './linear-pattern.ts';
import { cloneValue } from './clone-value.ts';
import { isPlainlyMetaValid } from './meta-valid.ts';
import { ajvModules } from './ajv-modules.ts';

/** The JSON Schema drafts toolmark validates, chosen by a schema's `$schema` (default 2020-12). */
export type JsonSchemaDraft = '2020-12' | '2019-09' | 'draft-07';

const DRAFTS: readonly { draft: JsonSchemaDraft; marker: RegExp }[] = [
  { draft: '2020-12', marker: /\/draft\/2020-12\/schema#?$/ },
  { draft: '2019-09', marker: /\/draft\/2019-09\/schema#?$/ },
  { draft: 'draft-07', marker: /\/draft-07\/schema#?$/ },
];

/** How a plain JSON Schema is checked. */
export interface JsonSchemaOptions {
  /**
   * Reject unknown keywords (a typo such as `requried` is then a load error
   * instead of a constraint silently not enforced). Default true; schemas
   * from elsewhere (an MCP server) that carry vendor keywords turn it off.
   */
  strict?: boolean;
}

/** A JSON Schema that cannot be used: its draft is unknown, or the validator rejects it. */
export class JsonSchemaError extends Error {
  override readonly name = 'JsonSchemaError';
  constructor(
    message: string,
    /** What a valid schema looks like, for the load error. */
    readonly expected: string,
  ) {
    super(message);
  }
}

/** Which draft a schema declares; throws `JsonSchemaError` for a `$schema` toolmark does not validate. */
export function draftOf(schema: JsonSchema): JsonSchemaDraft {
  const marker = schema.$schema;
  if (marker === undefined) return '2020-12';
  const found = typeof marker === 'string' ? DRAFTS.find((candidate) => candidate.marker.test(marker)) : undefined;
  if (!found) {
    throw new JsonSchemaError(
      `unsupported $schema ${JSON.stringify(marker)}`,
      'https://json-schema.org/draft/2020-12/schema (the default), https://json-schema.org/draft/2019-09/schema or http://json-schema.org/draft-07/schema#',
    );
  }
  return found.draft;
}

// One validator per draft and strictness, made on first use (ajv is loaded
// only when a domain uses plain JSON Schema). A pure memo: what it holds is
// decided by its key alone.
const validators = new Map<string, AjvCore>();

function validatorFor(draft: JsonSchemaDraft, strict: boolean): AjvCore {
  const id = `${draft}:${strict}`;
  let ajv = validators.get(id);
  if (!ajv) {
    const modules = ajvModules();
    const Ajv = draft === '2020-12' ? modules.Ajv2020 : draft === '2019-09' ? modules.Ajv2019 : modules.Ajv;
    const { addFormats } = modules;
    ajv = new Ajv({
      allErrors: true,
      // The handler gets defaults filled in, as zod's `.default()` does.
      useDefaults: true,
      // parentSchema on each error: the allowed keys and property types of a violation.
      verbose: true,
      strictSchema: strict,
      strictTypes: false,
      strictTuples: false,
      // Tools from different servers may reuse an `$id`; each schema stands alone.
      addUsedSchema: false,
      logger: false,
      // `pattern` and `patternProperties` on a linear-time engine: a crafted argument cannot hang validation.
      code: { regExp: linearPatternEngine },
    });
    addFormats(ajv);
    validators.set(id, ajv);
  }
  return ajv;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function typeOfProperty(parentSchema: unknown, name: string): unknown {
  const properties = (parentSchema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  return properties?.[name]?.type;
}

/**
 * One ajv error as a violation: a JSON-pointer path, ajv's message, and the
 * expected value where the model needs it to act (ajv's enum message does not
 * list the values; an unknown key's message does not list the known ones).
 */
function violationOf(error: ErrorObject): Violation {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      const type = typeOfProperty(error.parentSchema, name);
      return {
        path: `${error.instancePath}/${escapePointer(name)}`,
        message: `required property "${name}" is missing`,
        ...(type !== undefined ? { expected: type } : {}),
      };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return {
        path: error.instancePath,
        message: `unrecognized key "${name}"`,
        ...(known.length > 0 ? { expected: known } : {}),
      };
    }
    case 'type':
      return { path: error.instancePath, message: error.message ?? 'has the wrong type', expected: params.type };
    case 'enum':
      return {
        path: error.instancePath,
        message: error.message ?? 'is not an allowed value',
        expected: params.allowedValues,
      };
    case 'const':
      return {
        path: error.instancePath,
        message: error.message ?? 'is not the allowed value',
        expected: params.allowedValue,
      };
    default:
      return { path: error.instancePath, message: error.message ?? `fails "${error.keyword}"` };
  }
}

function violationsOf(errors: readonly ErrorObject[]): Violation[] {
  const seen = new Set<string>();
  const violations: Violation[] = [];
  for (const error of errors) {
    const violation = violationOf(error);
    const id = `${violation.path}\n${violation.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    violations.push(violation);
  }
  return violations;
}

/** ajv's compile; without its meta-schema check when the schema passes it by its shape alone (./meta-valid.ts). */
function compileSchema(ajv: AjvCore, schema: JsonSchema): ValidateFunction {
  if (!isPlainlyMetaValid(schema)) return ajv.compile(schema);
  const checked = ajv.opts.validateSchema;
  ajv.opts.validateSchema = false;
  try {
    return ajv.compile(schema);
  } finally {
    ajv.opts.validateSchema = checked;
  }
}

/**
 * Adapt a plain JSON Schema, validated by ajv 8 with ajv-formats (every
 * format on), in the draft its `$schema` names. Compiles now: an unusable
 * schema throws `JsonSchemaError` (the loader turns it into a load error on
 * the tool's field). The model payload is the schema without `$schema`.
 */
export function fromJsonSchema<T = unknown>(schema: JsonSchema, options: JsonSchemaOptions = {}): ToolSchema<T> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new JsonSchemaError(
      'a JSON Schema must be an object',
      'an object such as { "type": "object", "properties": { … } }',
    );
  const draft = draftOf(schema);
  let check: ValidateFunction;
  try {
    check = compileSchema(validatorFor(draft, options.strict ?? true), schema);
  } catch (error) {
    throw new JsonSchemaError(
      `invalid JSON Schema (${draft}): ${error instanceof Error ? error.message : String(error)}`,
      `a valid JSON Schema ${draft} document`,
    );
  }
  const { $schema: _marker, ...payload } = structuredClone(schema);
  const jsonSchema = frozen(payload);
  return {
    jsonSchema,
    validate(value: unknown): Validation<T> {
      // ajv fills defaults in place: validate a copy, so the caller's value
      // (the model's arguments, which approvals are fingerprinted over) stays as sent.
      const copy = cloneValue(value);
      if (check(copy)) return { ok: true, value: copy as T };
      return { ok: false, violations: violationsOf(check.errors ?? []) };
    },
  };
}

/**
 * `fromJsonSchema({})` without ajv: the schema that accepts every value
 * (a tool without a declared output). It validates as ajv does with `{}`
 * (a copy of the value, always valid), and building it loads nothing:
 * loading ajv and compiling its meta-schema cost ~0.1–0.2 s of a start-up.
 */
export function anyValueSchema(): ToolSchema<unknown> {
  return {
    jsonSchema: frozen({}),
    validate: (value: unknown): Validation<unknown> => ({ ok: true, value: cloneValue(value) }),
  };
}
