import { canonicalJson, sha256 } from '../spec/index.ts';

/**
 * `sha256:<hex>` of the canonical JSON of the arguments with the idempotency
 * key field removed. Approvals are bound to it (so approving note A never
 * approves note B, whatever key the write carries), and idempotency compares
 * it (same key, same fingerprint → replay; different → conflict).
 */
export function approvalFingerprint(args: unknown, idempotencyKeyField: string | null): string {
  if (idempotencyKeyField !== null && typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const { [idempotencyKeyField]: _key, ...rest } = args as Record<string, unknown>;
    return sha256(canonicalJson(rest));
  }
  return sha256(canonicalJson(args ?? null));
}
