import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { link, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolResult } from '../spec/index.ts';
import type { Claim, Receipt, ReceiptStore } from './receipt-store.ts';

/** A claim not yet completed or released: a call in flight, or one that crashed (outcome unknown). */
export interface PendingClaimRow {
  tool: string;
  key: string;
  fingerprint: string;
  claim_id: string;
  claimed_at: string;
}

const FORMAT = 1;

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

function isTaken(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'EEXIST';
}

/**
 * Durable receipts in a folder, with nothing but the file system (no native
 * module to compile): a receipt written before a crash or restart still
 * stops the second write afterwards, and a claim taken by one handle (or
 * process) stops every other handle on the same folder from running the
 * same key at the same time.
 *
 * One file per (tool, key), named by a hash of the pair, under `receipts/`
 * and `claims/`. Every file is written in full to a private temporary name,
 * flushed, then hard-linked into place: `link` fails when the name exists
 * and is atomic, so "first receipt wins" and "one claimant" hold across
 * processes, and no reader ever sees a half-written file. Works on any local
 * file system with hard links (not on network shares that lack them).
 */
export class FileReceiptStore implements ReceiptStore {
  readonly #receipts: string;
  readonly #claims: string;
  readonly #staging: string;

  constructor(dir: string) {
    this.#receipts = join(dir, 'receipts');
    this.#claims = join(dir, 'claims');
    this.#staging = join(dir, 'staging');
    for (const folder of [this.#receipts, this.#claims, this.#staging]) mkdirSync(folder, { recursive: true });
  }

  #name(tool: string, key: string): string {
    return `${createHash('sha256').update(`${tool}\n${key}`).digest('hex')}.json`;
  }

  /** Write `value` under `folder/name` unless that name exists; true when this call wrote it. */
  async #create(folder: string, name: string, value: object): Promise<boolean> {
    const temporary = join(this.#staging, `${randomUUID()}.json`);
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(`${JSON.stringify({ v: FORMAT, ...value })}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, join(folder, name));
      await this.#syncFolder(folder);
      return true;
    } catch (error) {
      if (isTaken(error)) return false;
      throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  }

  // The new name itself must survive a power cut, not only the file's bytes.
  async #syncFolder(folder: string): Promise<void> {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async #read<T>(folder: string, name: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(join(folder, name), 'utf8')) as T;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  #toReceipt(stored: Receipt): Receipt {
    return {
      tool: stored.tool,
      key: stored.key,
      fingerprint: stored.fingerprint,
      result: ToolResult.parse(stored.result),
      created_at: stored.created_at,
    };
  }

  async get(tool: string, key: string): Promise<Receipt | undefined> {
    const stored = await this.#read<Receipt>(this.#receipts, this.#name(tool, key));
    return stored ? this.#toReceipt(stored) : undefined;
  }

  async put(receipt: Receipt): Promise<void> {
    await this.#create(this.#receipts, this.#name(receipt.tool, receipt.key), receipt);
  }

  async claim(tool: string, key: string, fingerprint: string): Promise<Claim> {
    const name = this.#name(tool, key);
    for (;;) {
      const receipt = await this.get(tool, key);
      if (receipt) return { kind: 'receipt', receipt };
      const claim: PendingClaimRow = {
        tool,
        key,
        fingerprint,
        claim_id: randomUUID(),
        claimed_at: new Date().toISOString(),
      };
      if (await this.#create(this.#claims, name, claim)) {
        // Another holder may have completed (receipt in, claim out) between
        // our look-up and our claim: then the receipt stands and ours goes.
        const late = await this.get(tool, key);
        if (!late) return { kind: 'claimed', claim_id: claim.claim_id };
        await this.release(tool, key, claim.claim_id);
        return { kind: 'receipt', receipt: late };
      }
      const held = await this.#read<PendingClaimRow>(this.#claims, name);
      if (held) return { kind: 'pending', fingerprint: held.fingerprint, claimed_at: held.claimed_at };
      // The holder finished between our link and our read: look again.
    }
  }

  async complete(claimId: string, receipt: Receipt): Promise<void> {
    // Receipt first, claim second: a reader in between sees the receipt and the claim, and the receipt wins.
    await this.put(receipt);
    await this.release(receipt.tool, receipt.key, claimId);
  }

  async release(tool: string, key: string, claimId: string): Promise<void> {
    const name = this.#name(tool, key);
    // Only the owner's claim is dropped; nobody else can replace it while it exists.
    const held = await this.#read<PendingClaimRow>(this.#claims, name);
    if (held?.claim_id !== claimId) return;
    await unlink(join(this.#claims, name)).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }

  /** Claims not completed or released: calls in flight, or left behind by a crash (outcome unknown). */
  async pendingClaims(): Promise<PendingClaimRow[]> {
    const rows: PendingClaimRow[] = [];
    for (const name of await readdir(this.#claims)) {
      const row = await this.#read<PendingClaimRow & { v?: number }>(this.#claims, name);
      if (row)
        rows.push({
          tool: row.tool,
          key: row.key,
          fingerprint: row.fingerprint,
          claim_id: row.claim_id,
          claimed_at: row.claimed_at,
        });
    }
    return rows.sort((a, b) => a.claimed_at.localeCompare(b.claimed_at));
  }

  /**
   * Operator action after checking the outside world: drop a stuck claim so
   * the key may run again. Returns whether a claim was dropped. (If the
   * write did happen, `put` its receipt instead: a receipt beats a claim.)
   */
  async clearClaim(tool: string, key: string): Promise<boolean> {
    try {
      await unlink(join(this.#claims, this.#name(tool, key)));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** Nothing to close (no open handles between calls); kept so callers can treat stores alike. */
  close(): void {}
}
