import type { JsonSchema } from '../../spec/index.ts';

/**
 * One reason a value (a tool's arguments or its output) did not match its
 * schema. The shape is what a model reads in `details.violations` of an
 * `invalid_arguments` error, so it says where, what, and — where that helps
 * the model fix its call — what was expected.
 */
export interface Violation {
  /**
   * Where: zod schemas give a dotted path (`items[0].id`, `(root)` for the
   * value itself); JSON Schema gives a JSON pointer (`/items/0/id`, `""` for
   * the value itself), the notation its authors and tools use.
   */
  path: string;
  message: string;
  /**
   * What would have been accepted, when the schema says so plainly: a type
   * name (`"string"`), the allowed values (`["open", "waiting"]`), a constant,
   * or the allowed property names. Left out when the message already says
   * it (zod's messages do) or when nothing short would help.
   */
  expected?: unknown;
}

/** The result of validating a value: the value the handler gets (defaults filled in), or every violation. */
export type Validation<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

/**
 * The seam between a tool's schema and the registry (SPEC §9): the JSON
 * Schema the model is shown, and a validate function. Every schema flavour a
 * domain may write (zod 4, zod 3, plain JSON Schema) is adapted to this;
 * nothing else in toolmark looks inside a schema library.
 *
 * A domain may also hand the registry a `ToolSchema` of its own (e.g. an
 * MCP server's tool, validated by the server's own rules).
 */
export interface ToolSchema<T = unknown> {
  /**
   * What the model is shown: the *input* side (a field with a default is
   * optional), without the `$schema` marker, which costs tokens and tells a
   * model nothing. Shared and frozen: copy it (`structuredClone`) to change it.
   */
  readonly jsonSchema: JsonSchema;
  /** Check a value; never throws for any JSON value. Does not change `value`. */
  validate(value: unknown): Validation<T>;
}

/** Is this already a `ToolSchema` (as opposed to a zod schema or a plain JSON Schema)? */
export function isToolSchema(value: unknown): value is ToolSchema {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<ToolSchema>;
  // A JSON Schema is data, never a function; a zod schema has no `jsonSchema`.
  return (
    typeof candidate.validate === 'function' &&
    typeof candidate.jsonSchema === 'object' &&
    candidate.jsonSchema !== null
  );
}

/** Deep-freeze a JSON value the seam hands out, so a caller that changes it without copying fails loudly. */
export function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) frozen(child);
    Object.freeze(value);
  }
  return value;
}
