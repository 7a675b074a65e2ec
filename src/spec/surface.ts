import { z } from 'zod';
import { JsonSchema } from './json.ts';
import { ToolDefinition } from './model.ts';
import { Perturbation, Visibility } from './surface-options.ts';
import { SurfaceLoading, SurfaceLoadingFields } from './surface-loading.ts';

/** How a multiplexed ("wide") exposed tool maps a proposal to an action. */
export const ActionsBy = z.strictObject({
  /** Argument field whose value selects the action (e.g. `operation`). */
  field: z.string(),
  /** Argument field holding the action's own arguments; absent = the call's top level. */
  arguments: z.string().optional(),
  map: z.record(z.string(), z.string()),
});
export type ActionsBy = z.infer<typeof ActionsBy>;

/** One tool entry in a surface YAML file (SPEC §3). */
export const SurfaceToolEntry = z.strictObject({
  /** Identity mapping: this exposed tool is exactly one action (and the registry tool of that name). */
  action: z.string().optional(),
  /** Multiplexed: the registry tool that executes it. */
  tool: z.string().optional(),
  actions_by: ActionsBy.optional(),
  /** Exposed name; defaults to the action or tool id. */
  name: z.string().optional(),
  description: z.string().optional(),
  /** Per-parameter description overrides, by parameter name (dotted for nested). */
  parameters: z.record(z.string(), z.string()).optional(),
  /** Only in a revision: drop the matching parent tool. */
  remove: z.literal(true).optional(),
});
export type SurfaceToolEntry = z.infer<typeof SurfaceToolEntry>;

/** A surface file as written (SPEC §3). A revision names its parent with `extends`. */
export const SurfaceFile = z.strictObject({
  v: z.literal(1).optional(),
  id: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash or underscore'),
  extends: z.string().optional(),
  description: z.string().optional(),
  strict: z.boolean().optional(),
  tools: z.array(SurfaceToolEntry).default([]),
  /** Reorder by action (or tool) id; unlisted tools keep their relative order after the listed ones. */
  order: z.array(z.string()).optional(),
  /** Optional system prompt sent with every task on this surface. */
  system: z.string().optional(),
  /** Hide tools the task's actor may not use (surface-options.ts); inherited. */
  visibility: Visibility.optional(),
  /** Derive a perturbed surface from the merged tools (surface-options.ts); not inherited. */
  perturb: Perturbation.optional(),
  /** Deferred loading: `loading`, `always_loaded`, `search` (surface-loading.ts). */
  ...SurfaceLoadingFields,
});
export type SurfaceFile = z.infer<typeof SurfaceFile>;

/** How one exposed tool maps proposals back to actions. */
export const ToolMapping = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('identity'), action: z.string() }),
  z.object({
    kind: z.literal('multiplexed'),
    field: z.string(),
    arguments: z.string().nullable(),
    map: z.record(z.string(), z.string()),
  }),
]);
export type ToolMapping = z.infer<typeof ToolMapping>;

/** One tool of a resolved surface: what the model sees plus how to route it. */
export const ExposedTool = z.object({
  name: z.string(),
  description: z.string(),
  /** The registry tool that executes a call to this exposed tool. */
  tool: z.string(),
  mapping: ToolMapping,
  /** The JSON Schema sent to the model, parameter overrides applied. */
  parameters: JsonSchema,
});
export type ExposedTool = z.infer<typeof ExposedTool>;

/** A surface after `extends` is merged: the unit a run evaluates. */
export const ResolvedSurface = z.object({
  domain: z.string(),
  id: z.string(),
  extends: z.string().nullable(),
  description: z.string(),
  strict: z.boolean(),
  system: z.string().nullable(),
  tools: z.array(ExposedTool),
  /** The exact normalised payload a provider receives (order kept). */
  payload: z.array(ToolDefinition),
  /** Deferred loading; absent or null = eager (every tool in every request). */
  loading: SurfaceLoading.nullable().optional(),
  /** `sha256:<hex>` over the canonical payload: changes iff what the model sees changes. */
  hash: z.string(),
  file: z.string(),
  /**
   * Set with `visibility: by_permission`: the permission each exposed tool
   * needs, by exposed name (tools that need none are absent). A task's
   * request leaves out the tools its actor lacks the permission for.
   */
  visibility: z.strictObject({ by: z.literal('permission'), permissions: z.record(z.string(), z.string()) }).optional(),
  /** Names of payload tools that are distractors (`perturb.distractors`): shown, never routed to an action. */
  distractors: z.array(z.string()).optional(),
  /** The `perturb:` the surface was derived with, as declared. */
  perturb: Perturbation.optional(),
});
export type ResolvedSurface = z.infer<typeof ResolvedSurface>;
