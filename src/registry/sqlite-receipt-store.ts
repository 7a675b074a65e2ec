import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ToolResult } from '../spec/index.ts';
import type { Claim, Receipt, ReceiptStore } from './receipt-store.ts';

interface ReceiptRow {
  tool: string;
  key: string;
  fingerprint: string;
  result: string;
  created_at: string;
}

/** A claim not yet completed or released: a call in flight, or one that crashed (outcome unknown). */
export interface PendingClaimRow {
  tool: string;
  key: string;
  fingerprint: string;
  claim_id: string;
  claimed_at: string;
}

/**
 * Durable receipts in a SQLite file (better-sqlite3): a receipt written
 * before a crash or restart still stops the second write afterwards, and a
 * claim taken by one handle (or process) stops every other handle on the
 * same file from running the same key at the same time.
 * The native module is loaded only when a store is opened, so importing the
 * registry stays cheap.
 *
 * Claims live in their own table, not as NULL-result receipt rows, so files
 * written before claims existed open unchanged and a stuck claim can be
 * cleared without any chance of deleting a real receipt.
 */
export class SqliteReceiptStore implements ReceiptStore {
  readonly #db: BetterSqlite3.Database;
  readonly #select: BetterSqlite3.Statement<[string, string], ReceiptRow>;
  readonly #insert: BetterSqlite3.Statement<[string, string, string, string, string]>;
  readonly #selectClaim: BetterSqlite3.Statement<[string, string], PendingClaimRow>;
  readonly #deleteClaim: BetterSqlite3.Statement<[string, string, string]>;
  readonly #claim: BetterSqlite3.Transaction<(tool: string, key: string, fingerprint: string) => Claim>;
  readonly #complete: BetterSqlite3.Transaction<(claimId: string, receipt: Receipt) => void>;

  constructor(path: string) {
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    // better-sqlite3 waits up to `timeout` ms for another connection's write lock.
    this.#db = new Database(path, { timeout: 5_000 });
    this.#db.pragma('journal_mode = WAL');
    this.#db.exec(`CREATE TABLE IF NOT EXISTS receipts (
      tool TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      result TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (tool, key)
    );
    CREATE TABLE IF NOT EXISTS claims (
      tool TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      claim_id TEXT NOT NULL,
      claimed_at TEXT NOT NULL,
      PRIMARY KEY (tool, key)
    )`);
    this.#select = this.#db.prepare('SELECT tool, key, fingerprint, result, created_at FROM receipts WHERE tool = ? AND key = ?');
    // OR IGNORE: the first receipt for a key wins, as in the memory store.
    this.#insert = this.#db.prepare('INSERT OR IGNORE INTO receipts (tool, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)');
    this.#selectClaim = this.#db.prepare('SELECT tool, key, fingerprint, claim_id, claimed_at FROM claims WHERE tool = ? AND key = ?');
    const insertClaim = this.#db.prepare<[string, string, string, string, string]>(
      'INSERT OR IGNORE INTO claims (tool, key, fingerprint, claim_id, claimed_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#deleteClaim = this.#db.prepare('DELETE FROM claims WHERE tool = ? AND key = ? AND claim_id = ?');

    // Read-then-write across two tables, so it runs under BEGIN IMMEDIATE: no
    // other connection can complete (receipt in, claim out) between our
    // "no receipt" and our claim insert.
    this.#claim = this.#db.transaction((tool: string, key: string, fingerprint: string): Claim => {
      const receipt = this.#select.get(tool, key);
      if (receipt) return { kind: 'receipt', receipt: this.#toReceipt(receipt) };
      const claimId = randomUUID();
      insertClaim.run(tool, key, fingerprint, claimId, new Date().toISOString());
      const held = this.#selectClaim.get(tool, key)!;
      if (held.claim_id === claimId) return { kind: 'claimed', claim_id: claimId };
      return { kind: 'pending', fingerprint: held.fingerprint, claimed_at: held.claimed_at };
    });
    // Receipt in and claim out together, so no reader ever sees the key free in between.
    this.#complete = this.#db.transaction((claimId: string, receipt: Receipt) => {
      this.#insert.run(receipt.tool, receipt.key, receipt.fingerprint, JSON.stringify(receipt.result), receipt.created_at);
      this.#deleteClaim.run(receipt.tool, receipt.key, claimId);
    });
  }

  #toReceipt(row: ReceiptRow): Receipt {
    return { tool: row.tool, key: row.key, fingerprint: row.fingerprint, result: ToolResult.parse(JSON.parse(row.result)), created_at: row.created_at };
  }

  async get(tool: string, key: string): Promise<Receipt | undefined> {
    const row = this.#select.get(tool, key);
    return row ? this.#toReceipt(row) : undefined;
  }

  async put(receipt: Receipt): Promise<void> {
    this.#insert.run(receipt.tool, receipt.key, receipt.fingerprint, JSON.stringify(receipt.result), receipt.created_at);
  }

  async claim(tool: string, key: string, fingerprint: string): Promise<Claim> {
    return this.#claim.immediate(tool, key, fingerprint);
  }

  async complete(claimId: string, receipt: Receipt): Promise<void> {
    this.#complete.immediate(claimId, receipt);
  }

  async release(tool: string, key: string, claimId: string): Promise<void> {
    this.#deleteClaim.run(tool, key, claimId);
  }

  /** Claims not completed or released: calls in flight, or left behind by a crash (outcome unknown). */
  pendingClaims(): PendingClaimRow[] {
    return this.#db.prepare<[], PendingClaimRow>('SELECT tool, key, fingerprint, claim_id, claimed_at FROM claims ORDER BY claimed_at').all();
  }

  /**
   * Operator action after checking the outside world: drop a stuck claim so
   * the key may run again. Returns whether a claim was dropped. (If the
   * write did happen, `put` its receipt instead: a receipt beats a claim.)
   */
  clearClaim(tool: string, key: string): boolean {
    return this.#db.prepare<[string, string]>('DELETE FROM claims WHERE tool = ? AND key = ?').run(tool, key).changes > 0;
  }

  close(): void {
    this.#db.close();
  }
}
