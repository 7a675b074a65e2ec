import type { JsonSchema } from '../../spec/index.ts';
import { frozen, type ToolSchema, type Validation } from './tool-schema.ts';
import { zod3JsonSchema, type Zod3Node } from './zod3-json-schema.ts';
import { violationsOfZodIssues, type ZodLikeIssue } from './zod-issues.ts';

/** Structurally, a zod 3 schema: what a user's project on zod 3 (or `zod/v3`) hands toolmark. */
export interface Zod3Schema<T = unknown> extends Zod3Node {
  readonly _output: T;
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ZodLikeIssue[] } };
}

/** zod 3 has `_def` and `safeParse` but no `_zod` (zod 4 has both `_zod` and a `_def` alias). */
export function isZod3Schema(value: unknown): value is Zod3Schema {
  if (typeof value !== 'object' || value === null || '_zod' in value) return false;
  const candidate = value as { _def?: unknown; safeParse?: unknown };
  return typeof candidate._def === 'object' && candidate._def !== null && typeof candidate.safeParse === 'function';
}

/**
 * Adapt a zod 3 schema: it validates itself (its refinements, defaults and
 * messages, as the user wrote them); the model payload is the JSON Schema of
 * its zod 4 twin (zod3-json-schema.ts), identical to the same tool in zod 4.
 */
export function fromZod3<T>(schema: Zod3Schema<T>): ToolSchema<T> {
  let jsonSchema: JsonSchema | undefined;
  return {
    get jsonSchema() {
      return (jsonSchema ??= frozen(zod3JsonSchema(schema)));
    },
    validate(value: unknown): Validation<T> {
      const parsed = schema.safeParse(value);
      if (parsed.success) return { ok: true, value: parsed.data };
      return { ok: false, violations: violationsOfZodIssues(parsed.error.issues) };
    },
  };
}
