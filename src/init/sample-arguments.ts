import type { JsonSchema } from '../spec/index.ts';

type Schema = Record<string, unknown>;

/**
 * Plausible arguments for a JSON Schema: its required fields only, each the
 * first enum value, the const, the default, an example, or a placeholder of
 * the right type. Used for the scaffold's hand-written cassette, whose
 * calls must pass the tool's own input schema.
 */
export function sampleArguments(schema: JsonSchema): Record<string, unknown> {
  const value = sampleValue(schema as Schema, 0);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function sampleValue(schema: Schema, depth: number): unknown {
  if (depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleValue(options[0] as Schema, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(
        required.filter((name) => name in properties).map((name) => [name, sampleValue(properties[name]!, depth + 1)]),
      );
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: min }, () => sampleValue((schema.items ?? {}) as Schema, depth + 1));
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      return sampleString(schema);
    default:
      return 'example';
  }
}

function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'date':
      return '2026-01-15';
    case 'date-time':
      return '2026-01-15T09:00:00Z';
    case 'time':
      return '09:00:00';
    case 'email':
      return 'someone@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    default: {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return 'example'.padEnd(min, 'x');
    }
  }
}
