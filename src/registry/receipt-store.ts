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

/** Where receipts live. Async so a durable store can sit behind it. */
export interface ReceiptStore {
  get(tool: string, key: string): Promise<Receipt | undefined>;
  /** Keeps the first receipt for a (tool, key): a later put never overwrites it. */
  put(receipt: Receipt): Promise<void>;
}

/** Receipts in a Map: one per trial, gone with the process. */
export class MemoryReceiptStore implements ReceiptStore {
  readonly #receipts = new Map<string, Receipt>();

  async get(tool: string, key: string): Promise<Receipt | undefined> {
    return this.#receipts.get(`${tool}\n${key}`);
  }

  async put(receipt: Receipt): Promise<void> {
    const id = `${receipt.tool}\n${receipt.key}`;
    if (!this.#receipts.has(id)) this.#receipts.set(id, receipt);
  }

  /** Number of receipts held (for tests and reports). */
  get size(): number {
    return this.#receipts.size;
  }
}
