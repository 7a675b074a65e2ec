import type { ToolDefinition } from '../../src/spec/model.ts';

// Keys whose value maps names to schemas: their own keys are names (a parameter may be called `pattern`).
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * A JSON Schema without the given keywords, at every level (a preset's
 * `drop_schema_keywords`, docs/providers.md#schemas-a-server-cannot-compile).
 * Some servers compile the tool schemas into a grammar and refuse the whole
 * request on a keyword they cannot compile — llama.cpp on some `pattern`s.
 * Only the payload the model sees changes: the registry still validates
 * every call against the full schema, so a call that breaks the dropped
 * rule is still an invalid call.
 */
export function dropSchemaKeywords(schema: unknown, keywords: ReadonlySet<string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => dropSchemaKeywords(item, keywords));
  if (schema === null || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (keywords.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      result[key] = Object.fromEntries(
        Object.entries(value).map(([name, inner]) => [name, dropSchemaKeywords(inner, keywords)]),
      );
    } else {
      result[key] = dropSchemaKeywords(value, keywords);
    }
  }
  return result;
}

/** The tools with `keywords` dropped from their parameters; the same array when there is nothing to drop. */
export function toolsWithoutKeywords(
  tools: ToolDefinition[],
  keywords: readonly string[] | undefined,
): ToolDefinition[] {
  if (!keywords || keywords.length === 0) return tools;
  const set = new Set(keywords);
  return tools.map((tool) => ({
    ...tool,
    parameters: dropSchemaKeywords(tool.parameters, set) as ToolDefinition['parameters'],
  }));
}
