import type { JsonSchema } from '../spec/index.ts';

type SchemaNode = Record<string, unknown>;

function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Property names of an object schema (looking through an array's items). */
function propertiesOf(node: SchemaNode): Record<string, unknown> | undefined {
  if (isNode(node.properties)) return node.properties;
  if (isNode(node.items) && isNode(node.items.properties)) return node.items.properties;
  return undefined;
}

/**
 * Set the description of the parameter at a dotted path (`customer.email`;
 * a list's items are looked through). Returns the names available where the
 * path stopped matching, or null on success. Mutates `schema`.
 */
export function overrideParameterDescription(
  schema: JsonSchema,
  dottedPath: string,
  description: string,
): { missing: string; available: string[] } | null {
  let node: SchemaNode = schema;
  for (const segment of dottedPath.split('.')) {
    const properties = propertiesOf(node);
    const next = properties?.[segment];
    if (!isNode(next)) return { missing: segment, available: Object.keys(properties ?? {}) };
    node = next;
  }
  node.description = description;
  return null;
}

/** Does the object schema (top level) declare this property? Schemas without `properties` accept anything. */
export function hasProperty(schema: JsonSchema, name: string): boolean {
  const properties = propertiesOf(schema);
  return properties === undefined || name in properties;
}

/** Names of the top-level properties, if the schema declares any. */
export function propertyNames(schema: JsonSchema): string[] {
  return Object.keys(propertiesOf(schema) ?? {});
}

/**
 * Strict mode, kept simple: every object schema that lists `properties`
 * forbids other keys (`additionalProperties: false`). Required lists are left
 * as the registry declares them (see docs/formats.md). Mutates `schema`.
 */
export function makeStrict(schema: unknown): void {
  if (Array.isArray(schema)) {
    schema.forEach(makeStrict);
    return;
  }
  if (!isNode(schema)) return;
  if (isNode(schema.properties) && !('additionalProperties' in schema)) schema.additionalProperties = false;
  for (const value of Object.values(schema)) makeStrict(value);
}
