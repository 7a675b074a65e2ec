import { z } from 'zod';
import type { JsonSchema } from '../spec/index.ts';

/** One reason arguments (or an output) did not match a schema. */
export interface Violation {
  /** Dotted path to the offending field (`items[0].id`), `(root)` for the value itself. */
  path: string;
  message: string;
}

// Keyed by the zod schema object: domains share one ToolSpec across every
// trial's registry, so each schema is converted once per process. A WeakMap
// holds no schema alive and carries no state beyond this pure memo.
const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema a model is shown for a zod input schema: the input side
 * (fields with defaults are optional), without the `$schema` marker.
 * Cached; callers get a copy they may change.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let cached = jsonSchemas.get(schema);
  if (!cached) {
    const converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    delete converted.$schema;
    cached = converted;
    jsonSchemas.set(schema, cached);
  }
  return structuredClone(cached);
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** Validate a value; on failure, list every violation with its path. */
export function validate<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; violations: Violation[] } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, violations: parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })) };
}
