import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { countSchemaCosts, schemaCost, startSchemaCounter } from '../../src/cost/schema-cost.ts';
import { RANKS_MODULE, writeTokenizerTable } from '../../src/cost/tokenizer-table.ts';

// The counter process may load the tokenizer from a prebuilt rank table
// (dist/, written by the build): only a table made from the installed
// gpt-tokenizer module is used, and then it is what the tokenizer is built from.

const require = createRequire(import.meta.url);
const payload = (name: string) => [
  { type: 'function', function: { name, description: `Look up the ${name} of a customer.`, parameters: {} } },
];
const folder = mkdtempSync(join(tmpdir(), 'toolmark-table-'));

/** A table whose ranks keep only the single characters: every character is then a token of its own. */
function characterTable(file: string, source: string): void {
  const ranks = (require(require.resolve(RANKS_MODULE)) as { default: unknown[] }).default.map((rank, index) =>
    typeof rank === 'string' && rank.length > 1 ? `\u0000unused ${index}` : rank,
  );
  writeFileSync(file, serialize({ source, ranks }));
}

/** SHA-256 of the installed rank module: what a table must name to be used. */
function installedDigest(): string {
  return createHash('sha256')
    .update(readFileSync(require.resolve(RANKS_MODULE)))
    .digest('hex');
}

describe('tokenizer rank table', { timeout: 60_000 }, () => {
  it('counts the same as the in-process tokenizer with the table the build writes', async () => {
    const table = join(folder, 'built.ranks');
    writeTokenizerTable(table);
    // Made from the installed module, so the counter takes it (a table it ignored would count the same).
    expect((deserialize(readFileSync(table)) as { source: string }).source).toBe(installedDigest());
    startSchemaCounter({ table });
    const [counted] = await countSchemaCosts([payload('email')]);
    expect(counted).toEqual(schemaCost(payload('email')));
  });

  it('builds the tokenizer from a table made from the installed module, and ignores one made from another', async () => {
    const installed = installedDigest();
    const matching = join(folder, 'matching.ranks');
    const stale = join(folder, 'stale.ranks');
    characterTable(matching, installed);
    characterTable(stale, '0'.repeat(64));
    const text = JSON.stringify(payload('plan'));

    startSchemaCounter({ table: matching });
    const [fromTable] = await countSchemaCosts([payload('plan')]);
    // Only single characters left to merge: one token per character (the text is ASCII).
    expect(fromTable!.tokens).toBe(text.length);

    startSchemaCounter({ table: stale });
    const [ignored] = await countSchemaCosts([payload('plan')]);
    expect(ignored).toEqual(schemaCost(payload('plan')));
    expect(ignored!.tokens).toBeLessThan(text.length / 2);
  });
});
