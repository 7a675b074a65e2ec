import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/run-folder/index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-file-content-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The bytes a file written from `chunks` must hold: each chunk's UTF-8, in
 * order. (The writer encodes each string on its own, so a pair split
 * across two of them would not be written whole: the generator makes none.)
 */
const expected = (chunks: readonly (string | Uint8Array)[]) =>
  Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)));

/** `size` bytes, each its index's low byte (so a misplaced byte shows). */
const bytesOf = (size: number) => Uint8Array.from({ length: size }, (_, index) => index & 0xff);

describe('a run file written in chunks', () => {
  it('holds every chunk in order, strings (no half surrogate pairs) and bytes, small and larger than a batch, Latin-1 or not', () => {
    const large = 'x'.repeat((1 << 20) + 7);
    const third = 'y'.repeat(Math.floor((1 << 20) / 3) - 5);
    const chunk = fc.oneof(
      // Lone surrogates as the encoder writes them (U+FFFD), as a page's text never splits a pair.
      fc.string({ unit: 'binary', maxLength: 20 }).map((text) => Buffer.from(text, 'utf8').toString('utf8')),
      // Up to a batch (`large`: more; two of `third`: a batch filled, written, begun again).
      fc.constantFrom('⚠ banner', 'é', '\uD83D\uDE00', large, `${large}⚠`, third, `${third}é`),
      fc.string({ maxLength: 20 }).map((text) => new Uint8Array(Buffer.from(`bytes ${text} ·`, 'utf8'))),
      // Bytes gathered into the batch (up to 64 KiB) or written on their own (more), some filling it past its end.
      fc.constantFrom(64 << 10, (64 << 10) + 1, (1 << 20) - 3, (1 << 20) + 5).map((size) => bytesOf(size)),
    );
    let count = 0;
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 8 }), (chunks) => {
        const file = path.join(dir, `page-${(count += 1)}.html`);
        writeFileAtomic(file, chunks);
        expect(readFileSync(file).equals(expected(chunks))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('holds many small byte chunks in order when they fill several batches', () => {
    const chunks = Array.from({ length: 40 }, (_, index) => (index % 3 === 2 ? `,${index}é` : bytesOf(60_000 + index)));
    const file = path.join(dir, 'many-bytes.html');
    writeFileAtomic(file, chunks);
    expect(readFileSync(file).equals(expected(chunks))).toBe(true);
  });
});
