import { fromJsonSchema, type ToolSchema } from '../registry/schema/index.ts';
import {
  KNOWN_ERROR_CODES,
  type DomainFileAction,
  type JsonSchema,
  type RuntimeContract,
  type ToolError,
  type ToolErrorCategory,
} from '../spec/index.ts';

/** An action's model-facing definition once `from` (a tools file entry) and inline fields are merged. */
export interface ResolvedDefinition {
  description: string;
  input: ToolSchema;
  /** The declared output schema (MCP `outputSchema`, or an inline `output`), if any. */
  output: ToolSchema | null;
}

/**
 * A JSON Schema taken from a tools file or a server: the model is shown it
 * exactly as stated (`$schema` and vendor keywords included, so an import
 * exports back to the same JSON), and it is validated without ajv's strict
 * keyword check, which would reject vendor keywords.
 */
export function importedSchema(schema: JsonSchema): ToolSchema {
  const checked = fromJsonSchema(schema, { strict: false });
  return { jsonSchema: Object.freeze(structuredClone(schema)), validate: (value) => checked.validate(value) };
}

/** The registry's runtime contract for an action of a YAML domain. */
export function runtimeOf(action: DomainFileAction): RuntimeContract {
  return {
    permission: action.permission,
    effect: action.effect,
    approval: action.approval,
    idempotency_key: action.idempotency_key,
    retry: { transient: action.transient, max_attempts: 1 },
    timeout_ms: action.timeout_ms,
  };
}

/** Error codes a YAML domain may return: toolmark's own plus the domain's `errors:`. */
export type ErrorTable = Record<string, { category: ToolErrorCategory; retryable: boolean }>;

/** The table of known codes extended by a domain's declared ones. */
export function errorTable(declared: ErrorTable): ErrorTable {
  return { ...KNOWN_ERROR_CODES, ...declared };
}

/** A structured error from a fixture, category and retryability from the table unless given. */
export function fixtureError(
  table: ErrorTable,
  error: {
    code: string;
    message: string;
    category?: ToolErrorCategory;
    retryable?: boolean;
    details?: Record<string, unknown>;
  },
): ToolError {
  const known = table[error.code];
  return {
    code: error.code,
    category: error.category ?? known?.category ?? 'internal',
    message: error.message,
    retryable: error.retryable ?? known?.retryable ?? false,
    details: error.details ?? {},
  };
}
