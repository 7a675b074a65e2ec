import { canonicalJson, toolError } from '../spec/index.ts';
import type { RuntimeContract, ToolResult } from '../spec/index.ts';
import type { ReceiptStore } from './receipt-store.ts';

/**
 * The idempotency stages of the call pipeline (registry.ts, steps 6 and 9):
 * the key of a call, what a repeated or concurrent call gets back, and the
 * settlement of a claim. Kept apart from the pipeline so that the order of
 * the steps reads in one place and the receipt rules in another.
 */

/** The part of a registry tool the idempotency stages read. */
interface KeyedTool {
  name: string;
  runtime: RuntimeContract;
}

/** One call's hold on its idempotency key, from the claim to its settlement (settleClaim). */
export interface HeldClaim {
  tool: { name: string };
  key: string | null;
  fingerprint: string;
  /** The handler recorded a write. */
  wrote: boolean;
  /** The claim while this call holds it; null before claiming and once settled. */
  claimId: string | null;
}

/** The idempotency key of a validated input, or null when the tool has none or the call left it out. */
export function keyOf(input: unknown, field: string | null): string | null {
  if (field === null || typeof input !== 'object' || input === null) return null;
  const value = (input as Record<string, unknown>)[field];
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : canonicalJson(value);
}

/** A stored result handed back for a repeated call. */
export function replayOf(result: ToolResult): ToolResult {
  if (result.ok) return { ok: true, output: result.output, replayed: true };
  return { ok: false, error: { ...result.error, details: { ...result.error.details, replayed: true } } };
}

/** The key was already used for this tool with different arguments. */
export function conflictOf(tool: KeyedTool, key: string): ToolResult {
  return {
    ok: false,
    error: toolError(
      'idempotency_conflict',
      `The ${tool.runtime.idempotency_key} "${key}" was already used for ${tool.name} with different arguments.`,
      {
        tool: tool.name,
        idempotency_key_field: tool.runtime.idempotency_key,
        idempotency_key: key,
      },
    ),
  };
}

/** Another call holds the key (or stopped before recording its outcome): this one is not run. */
export function inProgressOf(tool: KeyedTool, key: string, claimedAt: string): ToolResult {
  return {
    ok: false,
    error: toolError(
      'idempotency_in_progress',
      `Another call to ${tool.name} with the ${tool.runtime.idempotency_key} "${key}" has not finished, or stopped before recording its outcome. It was not run a second time; retry later.`,
      {
        tool: tool.name,
        idempotency_key_field: tool.runtime.idempotency_key,
        idempotency_key: key,
        claimed_at: claimedAt,
      },
    ),
  };
}

/**
 * Settle a call's claim exactly once: a receipt for every success and for
 * any failure after a write (so a retry can never write twice); otherwise
 * release it, so a retry after a failure that wrote nothing may run.
 */
export async function settleClaim(held: HeldClaim, result: ToolResult, receipts: ReceiptStore): Promise<void> {
  if (held.key === null || held.claimId === null) return;
  const claim = held.claimId;
  held.claimId = null;
  if (result.ok || held.wrote)
    await receipts.complete(claim, {
      tool: held.tool.name,
      key: held.key,
      fingerprint: held.fingerprint,
      result,
      created_at: new Date().toISOString(),
    });
  else await receipts.release(held.tool.name, held.key, claim);
}
