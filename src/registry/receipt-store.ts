import { randomUUID } from 'node:crypto';
import type { ToolResult } from '../spec/index.ts';

/**
 * What an idempotent call leaves behind: the result it returned, keyed by
 * tool and idempotency key, with the argument fingerprint it was made with.
 */
export interface Receipt {
  tool: string;
  key: string;
  /** `approvalFingerprint` of the call's arguments (idempotency key excluded). */
  fingerprint: string;
  result: ToolResult;
  created_at: string;
}

/**
 * The answer to "may I run this (tool, key)?", decided atomically by the
 * store so that two callers sharing one store file, in one process or in
 * several, can never both be told `claimed`.
 */
export type Claim =
  /** The key was free: the caller now owns it and must `complete` or `release` it. */
  | { kind: 'claimed'; claim_id: string }
  /** The key already has a receipt: replay it (or report a conflict). */
  | { kind: 'receipt'; receipt: Receipt }
  /**
   * Another claimant holds the key and has not finished, or crashed before
   * finishing (outcome unknown). Never re-executed on the caller's behalf.
   */
  | { kind: 'pending'; fingerprint: string; claimed_at: string };

/** Where receipts live. Async so a durable store can sit behind it. */
export interface ReceiptStore {
  get(tool: string, key: string): Promise<Receipt | undefined>;
  /** Keeps the first receipt for a (tool, key): a later put never overwrites it. */
  put(receipt: Receipt): Promise<void>;
  /**
   * One atomic step: a receipt if the key has one, else a pending claim by
   * someone else if there is one, else a new claim for this caller.
   */
  claim(tool: string, key: string, fingerprint: string): Promise<Claim>;
  /** Store the claimed call's receipt (first receipt wins, as `put`) and drop the claim. */
  complete(claimId: string, receipt: Receipt): Promise<void>;
  /** Drop a claim that wrote nothing, so a retry with the key may run. Only the owner's claim is dropped. */
  release(tool: string, key: string, claimId: string): Promise<void>;
}

interface PendingClaim {
  claim_id: string;
  fingerprint: string;
  claimed_at: string;
}

/** Receipts in a Map: one per trial, gone with the process. */
export class MemoryReceiptStore implements ReceiptStore {
  // Made on first use: every trial gets a store, and most never call a tool with an idempotency key.
  #receiptMap: Map<string, Receipt> | null = null;
  #claimMap: Map<string, PendingClaim> | null = null;

  get #receipts(): Map<string, Receipt> {
    return (this.#receiptMap ??= new Map());
  }

  get #claims(): Map<string, PendingClaim> {
    return (this.#claimMap ??= new Map());
  }

  async get(tool: string, key: string): Promise<Receipt | undefined> {
    return this.#receipts.get(`${tool}\n${key}`);
  }

  async put(receipt: Receipt): Promise<void> {
    const id = `${receipt.tool}\n${receipt.key}`;
    if (!this.#receipts.has(id)) this.#receipts.set(id, receipt);
  }

  // Synchronous bodies: nothing can interleave between the look-up and the set.
  async claim(tool: string, key: string, fingerprint: string): Promise<Claim> {
    const id = `${tool}\n${key}`;
    const receipt = this.#receipts.get(id);
    if (receipt) return { kind: 'receipt', receipt };
    const held = this.#claims.get(id);
    if (held) return { kind: 'pending', fingerprint: held.fingerprint, claimed_at: held.claimed_at };
    const claim_id = randomUUID();
    this.#claims.set(id, { claim_id, fingerprint, claimed_at: new Date().toISOString() });
    return { kind: 'claimed', claim_id };
  }

  async complete(claimId: string, receipt: Receipt): Promise<void> {
    const id = `${receipt.tool}\n${receipt.key}`;
    if (!this.#receipts.has(id)) this.#receipts.set(id, receipt);
    if (this.#claims.get(id)?.claim_id === claimId) this.#claims.delete(id);
  }

  async release(tool: string, key: string, claimId: string): Promise<void> {
    const id = `${tool}\n${key}`;
    if (this.#claims.get(id)?.claim_id === claimId) this.#claims.delete(id);
  }

  /** Number of receipts held (for tests and reports); pending claims are not receipts. */
  get size(): number {
    return this.#receipts.size;
  }

  /** Number of claims not yet completed or released. */
  get pending(): number {
    return this.#claims.size;
  }
}
