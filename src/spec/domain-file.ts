import { z } from 'zod';
import { Json, JsonSchema } from './json.ts';
import { TimeoutMs } from './numeric-limits.ts';
import { ArgConstraints } from './task.ts';
import { ToolFileFormat } from './tool-file.ts';
import { Effect } from './tool-call.ts';
import { ToolErrorCategory } from './tool-error.ts';

/** A fixture: when the arguments meet `when`, answer with `output` or `error` (docs/domain-yaml.md). */
export const FixtureResponse = z
  .strictObject({
    when: ArgConstraints.default({}),
    output: Json.optional(),
    error: z
      .strictObject({
        code: z.string().min(1),
        message: z.string(),
        category: ToolErrorCategory.optional(),
        retryable: z.boolean().optional(),
        details: z.record(z.string(), Json).optional(),
      })
      .optional(),
  })
  .refine((response) => (response.output === undefined) !== (response.error === undefined), {
    message: 'a response has exactly one of `output` or `error`',
  });
export type FixtureResponse = z.infer<typeof FixtureResponse>;

/** What an action does to the record store. */
export const StoreOperation = z.strictObject({
  collection: z.string().min(1),
  op: z.enum(['get', 'list', 'create', 'update', 'delete']),
  /** Argument field holding the record id (get, update, delete; create takes it when present). */
  id: z.string().optional(),
  /** list: constraints over each record's fields, taking values from the arguments (`{status: status}` = field `status` equals argument `status`). */
  where: z.record(z.string(), z.string()).optional(),
});
export type StoreOperation = z.infer<typeof StoreOperation>;

/** One action of a YAML domain, with its runtime contract and (for a declarative domain) its behaviour. */
export const DomainFileAction = z.strictObject({
  id: z.string().min(1),
  /** The tool in `tools_file` (or, for MCP, on the server) that carries this action. */
  from: z.string().min(1).optional(),
  description: z.string().optional(),
  input: JsonSchema.optional(),
  output: JsonSchema.optional(),
  effect: Effect.default('read'),
  permission: z.string().nullable().default(null),
  approval: z.enum(['never', 'required']).default('never'),
  idempotency_key: z.string().nullable().default(null),
  preview: z.string().optional(),
  timeout_ms: TimeoutMs.default(5_000),
  transient: z.boolean().default(false),
  /** Argument field naming what a write changes (the side effect's target); default: the record id or the arguments. */
  target: z.string().optional(),
  /** False while the contract is a proposal from an import (hints), true once a person checked it. */
  reviewed: z.boolean().default(true),
  responses: z.array(FixtureResponse).default([]),
  store: StoreOperation.optional(),
});
export type DomainFileAction = z.infer<typeof DomainFileAction>;

/** A final_state view of an MCP domain: a tool called on the trial's server at the end. */
export const McpView = z.strictObject({
  call: z.string().min(1),
  arguments: z.record(z.string(), Json).default({}),
  /** Keep part of the result: a dotted path, `[]` mapping over a list (`entities[].name`). */
  pick: z.string().optional(),
});
export type McpView = z.infer<typeof McpView>;

/** `suites/<name>/domain.yaml` (docs/domain-yaml.md). The `server:` section is checked by the MCP domain kind. */
export const DomainFile = z.strictObject({
  v: z.literal(1).optional(),
  name: z.string().min(1),
  description: z.string().default(''),
  kind: z.enum(['declarative', 'mcp']).default('declarative'),
  server: z.record(z.string(), z.unknown()).optional(),
  tools_file: z.union([z.string(), z.strictObject({ path: z.string(), format: ToolFileFormat.optional() })]).optional(),
  errors: z
    .record(z.string(), z.strictObject({ category: ToolErrorCategory, retryable: z.boolean().default(false) }))
    .default({}),
  store: z.record(z.string(), z.array(z.record(z.string(), Json))).default({}),
  actions: z.array(DomainFileAction).min(1),
  views: z.record(z.string(), McpView).default({}),
});
export type DomainFile = z.infer<typeof DomainFile>;
