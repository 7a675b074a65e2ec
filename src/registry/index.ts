/** The typed tool registry: ToolSpec, the invoke pipeline (SPEC §4), receipts, fingerprints. */
export { createRegistry } from './registry.ts';
export { callUserCode, pendingUserCode, runningUserCall, runningUserCode } from './user-code-marker.ts';
export type { UserCode } from './user-code-marker.ts';
export type { InvokeContext, Registry } from './registry.ts';
export type { HandlerContext, ToolSpec } from './tool-spec.ts';
export { actionOf, contractConflicts, POLICY_FIELDS, resolveContract } from './contract.ts';
export type { ContractConflict, PolicyField, ToolRuntime } from './contract.ts';
export { fail, isHandlerFailure } from './fail.ts';
export type { HandlerFailure } from './fail.ts';
export { approvalFingerprint } from './fingerprint.ts';
export { MemoryReceiptStore } from './receipt-store.ts';
export type { Claim, Receipt, ReceiptStore } from './receipt-store.ts';
export { FileReceiptStore } from './file-receipt-store.ts';
export type { PendingClaimRow } from './file-receipt-store.ts';
export {
  draftOf,
  fromJsonSchema,
  fromZod3,
  fromZod4,
  isToolSchema,
  jsonSchema,
  JsonSchemaError,
  jsonSchemaOf,
  toolSchemaOf,
} from './schema/index.ts';
export type {
  InferSchema,
  JsonSchemaDraft,
  JsonSchemaOptions,
  SchemaSource,
  ToolSchema,
  TypedJsonSchema,
  Validation,
  Violation,
} from './schema/index.ts';
export { createDomainRegistry, defineDomain } from './domain.ts';
export { isPromise, LiveStates, teardownOf, withDomainState } from './domain-state.ts';
export type { TeardownOptions } from './domain-state.ts';
export { definedAt } from './defined-at.ts';
export type { DefinedAt } from './defined-at.ts';
export { defineTool, defineToolFor } from './define-tool.ts';
export type { ToolDefinition } from './define-tool.ts';
export { errorCodeSpec, errorTableProblems, toolErrorFor } from './errors.ts';
export type { DomainToolError, ErrorCodeOf, ErrorCodeSpec, ErrorTable } from './errors.ts';
export type { Domain, SyncDomain } from './domain.ts';
