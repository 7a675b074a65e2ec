/**
 * Schemas that are valid against the JSON Schema 2020-12 meta-schema by
 * their shape alone, so ajv need not check them against it (issue 20).
 *
 * Before compiling a schema, ajv validates it against its draft's
 * meta-schema, and the first time it does so it compiles that meta-schema
 * (2020-12 with all its vocabularies): ~45–60 ms of CPU, a quarter of
 * loading a 10,000-task project whose tools come from an OpenAI tools file,
 * and part of every `toolmark validate`. The schemas tools declare are
 * almost always small objects of `type`, `properties`, `required`, `enum`,
 * `description`. For a schema built only of the keywords below, each with a
 * value of the type the meta-schema asks for, that check cannot fail, so
 * skipping it compiles the same validator and throws the same errors.
 * Anything else — another keyword, any `$` keyword (`$schema`, `$ref`,
 * `$id`, …), `pattern` (its meta-schema checks the regex's format), a value
 * of another type — goes through ajv's own check, as before.
 */

/** Keywords whose value the 2020-12 meta-schema accepts whatever it is (`enum` any list). Numbers are finite: ajv's `number` type refuses NaN and Infinity (YAML `.inf`). */
const ANY_VALUE = new Set(['enum', 'const', 'default']);
const STRING = new Set(['title', 'description', 'format']);
const NUMBER = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
const NON_NEGATIVE_INTEGER = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);
const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

/** Nesting beyond this is left to ajv (and keeps this check's recursion shallow). */
const MAX_DEPTH = 32;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isUniqueStrings(value: unknown, allowed?: ReadonlySet<string>, min = 0): boolean {
  if (!Array.isArray(value) || value.length < min) return false;
  const seen = new Set<unknown>();
  for (const entry of value) {
    if (typeof entry !== 'string' || seen.has(entry) || (allowed && !allowed.has(entry))) return false;
    seen.add(entry);
  }
  return true;
}

function isSubschema(value: unknown, depth: number): boolean {
  return typeof value === 'boolean' || isPlainlyMetaValid(value, depth + 1);
}

/**
 * True only when `schema` (no `$schema`: the 2020-12 meta-schema applies)
 * passes the meta-schema for certain; false means "check it", not "invalid".
 */
export function isPlainlyMetaValid(schema: unknown, depth = 0): boolean {
  if (!isObject(schema) || depth > MAX_DEPTH) return false;
  for (const key in schema) {
    if (!Object.prototype.hasOwnProperty.call(schema, key)) return false;
    const value = schema[key];
    if (ANY_VALUE.has(key)) {
      if (key === 'enum' && !Array.isArray(value)) return false;
    } else if (STRING.has(key)) {
      if (typeof value !== 'string') return false;
    } else if (NUMBER.has(key)) {
      if (!Number.isFinite(value)) return false;
    } else if (NON_NEGATIVE_INTEGER.has(key)) {
      if (!Number.isInteger(value) || (value as number) < 0) return false;
    } else if (key === 'type') {
      if (typeof value === 'string' ? !TYPES.has(value) : !isUniqueStrings(value, TYPES, 1)) return false;
    } else if (key === 'required') {
      if (!isUniqueStrings(value)) return false;
    } else if (key === 'properties') {
      if (!isObject(value)) return false;
      for (const name in value) {
        if (!Object.prototype.hasOwnProperty.call(value, name) || !isSubschema(value[name], depth)) return false;
      }
    } else if (key === 'items' || key === 'additionalProperties') {
      if (!isSubschema(value, depth)) return false;
    } else if (key === 'multipleOf') {
      if (!Number.isFinite(value) || (value as number) <= 0) return false;
    } else if (key === 'uniqueItems') {
      if (typeof value !== 'boolean') return false;
    } else return false;
  }
  return true;
}
