/**
 * toolmark's public API: `import { defineDomain, toolError } from 'toolmark'`.
 *
 * What a domain author needs (defineDomain, fail, toolError and the types of
 * a domain, its actions, tools and handler context), what a provider author
 * implements (Provider: one `propose` method from a normalised request to a
 * normalised turn), and what a grader or report reads (TrialRecord, Verdict,
 * the summary). Everything else under src/ is internal and may change.
 * docs/domains.md walks through a complete domain.
 */

// Domains and their tools.
export { defineDomain } from './registry/domain.ts';
export type { Domain, SyncDomain } from './registry/domain.ts';
export { defineTool, defineToolFor } from './registry/define-tool.ts';
export type { ToolDefinition as DefineToolInput } from './registry/define-tool.ts';
export { toolErrorFor } from './registry/errors.ts';
export type { DomainToolError, ErrorCodeOf, ErrorCodeSpec, ErrorTable } from './registry/errors.ts';
export type { HandlerContext, ToolSpec } from './registry/tool-spec.ts';
export { fail, isHandlerFailure } from './registry/fail.ts';
export type { HandlerFailure } from './registry/fail.ts';
export { toolError, KNOWN_ERROR_CODES, ToolError, ToolErrorCategory } from './spec/tool-error.ts';
export type { KnownErrorCode } from './spec/tool-error.ts';
export { ActionSpec } from './spec/action.ts';
export { Actor, Effect, RuntimeContract, SideEffect } from './spec/tool-call.ts';
export type { Json, JsonSchema } from './spec/json.ts';

// Schemas: zod 4, zod 3 or plain JSON Schema, whichever the domain uses.
export {
  fromJsonSchema,
  fromZod3,
  fromZod4,
  jsonSchema,
  JsonSchemaError,
  toolSchemaOf,
} from './registry/schema/index.ts';
export type {
  InferSchema,
  SchemaSource,
  ToolSchema,
  TypedJsonSchema,
  Validation,
  Violation,
} from './registry/schema/index.ts';

// The registry, for running a domain's tools outside a run (tests, services).
export { createRegistry } from './registry/registry.ts';
export { createDomainRegistry } from './registry/domain.ts';
export type { InvokeContext, Registry } from './registry/registry.ts';
export { MemoryReceiptStore } from './registry/receipt-store.ts';
export { FileReceiptStore } from './registry/file-receipt-store.ts';
export type { Claim, Receipt, ReceiptStore } from './registry/receipt-store.ts';

// Providers.
export type {
  ModelMessage,
  ModelRequest,
  ModelSettings,
  ModelTurn,
  ProposeOptions,
  Provider,
  ToolCallProposal,
  ToolDefinition,
  TurnKey,
  Usage,
} from './spec/model.ts';
export { ProviderError } from './spec/errors.ts';

// What a run produces, for graders and reports.
export type { CallRecord, TrialRecord, Verdict } from './spec/trial.ts';
export type { Task, TaskKind } from './spec/task.ts';
export type { CassetteLine } from './spec/cassette.ts';
