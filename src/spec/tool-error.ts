import { z } from 'zod';

/** Every structured error category the registry can return (SPEC §4). */
export const ToolErrorCategory = z.enum([
  'validation',
  'policy',
  'not_found',
  'conflict',
  'dependency',
  'internal',
  'routing',
]);
export type ToolErrorCategory = z.infer<typeof ToolErrorCategory>;

/**
 * The error codes toolmark itself returns (or that any domain may use), with
 * their category and default retryability. A domain's own codes (e.g.
 * `ticket_not_found`) are declared on the domain (`errors`), not here.
 */
export const KNOWN_ERROR_CODES = {
  tool_not_found: { category: 'routing', retryable: false },
  invalid_arguments: { category: 'validation', retryable: false },
  permission_denied: { category: 'policy', retryable: false },
  approval_required: { category: 'policy', retryable: false },
  tool_timeout: { category: 'dependency', retryable: true },
  idempotency_conflict: { category: 'conflict', retryable: false },
  /** Another claimant holds the idempotency key and has not finished (or crashed: outcome unknown). */
  idempotency_in_progress: { category: 'conflict', retryable: true },
  handler_exception: { category: 'internal', retryable: false },
  invalid_tool_output: { category: 'internal', retryable: false },
  not_found: { category: 'not_found', retryable: false },
  invalid_cursor: { category: 'validation', retryable: false },
  rate_limited: { category: 'dependency', retryable: true },
  tool_failed: { category: 'internal', retryable: false },
  /** The registry itself failed (e.g. the receipt store); never caused by the model. */
  internal_error: { category: 'internal', retryable: false },
} as const satisfies Record<string, { category: ToolErrorCategory; retryable: boolean }>;
export type KnownErrorCode = keyof typeof KNOWN_ERROR_CODES;

/** A structured tool error: data, never an exception (SPEC §4). */
export const ToolError = z.object({
  code: z.string().min(1),
  category: ToolErrorCategory,
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()).default({}),
});
export type ToolError = z.infer<typeof ToolError>;

/** Build a ToolError for a known code, taking category and retryability from the table. */
export function toolError(
  code: KnownErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  overrides: { retryable?: boolean } = {},
): ToolError {
  const known = KNOWN_ERROR_CODES[code];
  return { code, category: known.category, message, retryable: overrides.retryable ?? known.retryable, details };
}
