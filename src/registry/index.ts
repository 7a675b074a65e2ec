/** The typed tool registry: ToolSpec, the invoke pipeline (SPEC §4), receipts, fingerprints. */
export { createRegistry } from './registry.ts';
export type { InvokeContext, Registry } from './registry.ts';
export type { HandlerContext, ToolSpec } from './tool-spec.ts';
export { fail, isHandlerFailure } from './fail.ts';
export type { HandlerFailure } from './fail.ts';
export { approvalFingerprint } from './fingerprint.ts';
export { MemoryReceiptStore } from './receipt-store.ts';
export type { Claim, Receipt, ReceiptStore } from './receipt-store.ts';
export { FileReceiptStore } from './file-receipt-store.ts';
export type { PendingClaimRow } from './file-receipt-store.ts';
export { draftOf, fromJsonSchema, fromZod3, fromZod4, isToolSchema, jsonSchema, JsonSchemaError, jsonSchemaOf, toolSchemaOf } from './schema/index.ts';
export type { InferSchema, JsonSchemaDraft, JsonSchemaOptions, SchemaSource, ToolSchema, TypedJsonSchema, Validation, Violation } from './schema/index.ts';
export { defineDomain } from './domain.ts';
export type { Domain } from './domain.ts';
