import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { serialize } from 'node:v8';

/*
 * The o200k tokenizer's rank table, prebuilt. gpt-tokenizer ships its
 * 200,000 ranks as one JavaScript array literal (2.4 MB): parsing it took
 * ~0.1–0.2 s of each run's schema token counter (a child process,
 * schema-cost.ts), on the second core while the project loads. The same
 * array written with `v8.serialize` at build time (`npm run build` puts it
 * in dist/) reads back in ~20 ms. The counter uses it only when it was made
 * from the very module installed now (its SHA-256), so an updated
 * gpt-tokenizer, or a table from another build, is never used by mistake:
 * the counter then loads the module as before. Nothing else changes: the
 * tokenizer is the package's, built from the same array.
 */

/** The table's place under dist/ (shipped with dist/src/). */
export const TOKENIZER_TABLE_IN_DIST = 'src/cost/o200k_base.ranks';

/** The module the table replaces, as gpt-tokenizer's o200k encoding requires it. */
export const RANKS_MODULE = 'gpt-tokenizer/bpeRanks/o200k_base';

const require = createRequire(import.meta.url);

/** What the table holds: the ranks and the digest of the module they came from. */
interface TokenizerTable {
  source: string;
  ranks: unknown[];
}

const digestOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Write the table of the installed gpt-tokenizer to `file` (scripts/build.js). */
export function writeTokenizerTable(file: string): void {
  const module = require.resolve(RANKS_MODULE);
  const table: TokenizerTable = {
    source: digestOf(module),
    ranks: (require(module) as { default: unknown[] }).default,
  };
  writeFileSync(file, serialize(table));
}

/**
 * CommonJS run by the counter process before it loads the tokenizer, with
 * `ranksModule` and `table` (absolute paths) in scope: when the table
 * matches the installed module, it stands in for that module in the
 * require cache, so the tokenizer is built from the table's array. Any
 * problem (no table, another digest, an unreadable file) leaves the cache
 * alone. Plain JavaScript in a string: the child runs no TypeScript.
 */
export const USE_TOKENIZER_TABLE = `
try {
  const { readFileSync } = require('node:fs');
  const { source, ranks } = require('node:v8').deserialize(readFileSync(table));
  const digest = require('node:crypto').createHash('sha256').update(readFileSync(ranksModule)).digest('hex');
  if (source === digest && Array.isArray(ranks)) {
    const Module = require('node:module');
    const cached = new Module(ranksModule);
    cached.filename = ranksModule;
    cached.loaded = true;
    cached.exports = { default: ranks };
    require.cache[ranksModule] = cached;
  }
} catch {}
`;
