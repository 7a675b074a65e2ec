import { z } from 'zod';
import { MAX_TOOL_ATTEMPTS, TimeoutMs } from './numeric-limits.ts';
import { ToolError } from './tool-error.ts';

/** What the registry is asked to run: a registry tool name and parsed arguments. */
export const ToolCall = z.object({
  tool: z.string(),
  arguments: z.unknown(),
  /** The model's call id, carried through for the record. */
  call_id: z.string().optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** Who is calling: the permissions the run grants the simulated user. */
export const Actor = z.object({
  id: z.string().default('user'),
  permissions: z.array(z.string()).default([]),
});
export type Actor = z.infer<typeof Actor>;

/**
 * An approval is bound to one call: the tool and the fingerprint of the
 * arguments it approves (idempotency key excluded). Approving a preview of
 * note A never approves writing note B.
 */
export const Approval = z.object({
  tool: z.string(),
  fingerprint: z.string(),
});
export type Approval = z.infer<typeof Approval>;

/** The outcome of one registry invocation. `replayed` marks an idempotent replay. */
export const ToolResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), output: z.unknown(), replayed: z.boolean().default(false) }),
  z.object({ ok: z.literal(false), error: ToolError }),
]);
export type ToolResult = z.infer<typeof ToolResult>;

export const Effect = z.enum(['read', 'write', 'destructive']);
export type Effect = z.infer<typeof Effect>;

/** The runtime half of a tool's contract (the model never sees this). */
export const RuntimeContract = z.object({
  /** Permission the actor must hold; null means none required. */
  permission: z.string().nullable().default(null),
  effect: Effect.default('read'),
  approval: z.enum(['never', 'required']).default('never'),
  /** Argument field that carries the idempotency key; null when not idempotent. */
  idempotency_key: z.string().nullable().default(null),
  /** A transient tool's timeouts are retryable. */
  retry: z
    .object({
      transient: z.boolean().default(false),
      max_attempts: z.number().int().min(1).max(MAX_TOOL_ATTEMPTS).default(1),
    })
    .default({ transient: false, max_attempts: 1 }),
  timeout_ms: TimeoutMs.default(5_000),
});
export type RuntimeContract = z.infer<typeof RuntimeContract>;

/** A write that a handler actually executed, logged by the domain. */
export const SideEffect = z.object({
  action: z.string(),
  effect: Effect,
  target: z.string(),
  /** Identity of the change (e.g. the idempotency key), to spot duplicates. */
  change_id: z.string().nullable().default(null),
  /** Filled by the runner: did the actor hold the permission and approval the action requires? */
  authorized: z.boolean().optional(),
  duplicate: z.boolean().optional(),
});
export type SideEffect = z.infer<typeof SideEffect>;
