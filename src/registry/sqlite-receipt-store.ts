import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ToolResult } from '../spec/index.ts';
import type { Receipt, ReceiptStore } from './receipt-store.ts';

interface ReceiptRow {
  tool: string;
  key: string;
  fingerprint: string;
  result: string;
  created_at: string;
}

/**
 * Durable receipts in a SQLite file (better-sqlite3): a receipt written
 * before a crash or restart still stops the second write afterwards.
 * The native module is loaded only when a store is opened, so importing the
 * registry stays cheap.
 */
export class SqliteReceiptStore implements ReceiptStore {
  readonly #db: BetterSqlite3.Database;
  readonly #select: BetterSqlite3.Statement<[string, string], ReceiptRow>;
  readonly #insert: BetterSqlite3.Statement<[string, string, string, string, string]>;

  constructor(path: string) {
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.exec(`CREATE TABLE IF NOT EXISTS receipts (
      tool TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      result TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (tool, key)
    )`);
    this.#select = this.#db.prepare('SELECT tool, key, fingerprint, result, created_at FROM receipts WHERE tool = ? AND key = ?');
    // OR IGNORE: the first receipt for a key wins, as in the memory store.
    this.#insert = this.#db.prepare('INSERT OR IGNORE INTO receipts (tool, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)');
  }

  async get(tool: string, key: string): Promise<Receipt | undefined> {
    const row = this.#select.get(tool, key);
    if (!row) return undefined;
    return { tool: row.tool, key: row.key, fingerprint: row.fingerprint, result: ToolResult.parse(JSON.parse(row.result)), created_at: row.created_at };
  }

  async put(receipt: Receipt): Promise<void> {
    this.#insert.run(receipt.tool, receipt.key, receipt.fingerprint, JSON.stringify(receipt.result), receipt.created_at);
  }

  close(): void {
    this.#db.close();
  }
}
