import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeJsonForScript } from '../../src/report/html/escape.ts';
import { embeddedTrials } from '../../src/report/html/page.ts';
import { utf8Chunks } from '../../src/report/html/utf8-chunks.ts';
import type { RunData } from '../../src/report/run-data.ts';
import { jsonForScript } from './json-for-script.ts';

/** escapeJsonForScript as it was before the one-pass escape: a replacement per character. */
function chainedEscape(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Strings made of the characters that matter here, and the escapes' own text. */
const tricky = fc
  .array(
    fc.constantFrom(
      'a',
      ' ',
      '<',
      '>',
      '&',
      '\u2028',
      '\u2029',
      '"',
      '\\',
      '\\u003c',
      '</script>',
      '\uD83D\uDE00',
      'é',
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('the trial data embedded in report.html', () => {
  it('escapes exactly as the chain of replacements did', () => {
    fc.assert(
      fc.property(
        fc.oneof(tricky, fc.string({ unit: 'binary' })),
        (text) => escapeJsonForScript(text) === chainedEscape(text),
      ),
    );
  });

  it('is the same text made as bytes (a small run) as made trial by trial (a large run), and jsonForScript of the sample', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ task: tricky, final_text: fc.option(tricky), trial: fc.nat() })), (trials) => {
        const sampled = trials.map((trial) => ({ ...trial, surface: 's', model: 'm', json: JSON.stringify(trial) }));
        const sample = { trials: sampled, total: trials.length + 3, limit: 50 } as RunData['sample'];
        const whole = [...embeddedTrials(sample)].join('');
        expect(Buffer.concat(utf8Chunks(embeddedTrials(sample))).toString('utf8')).toBe(whole);
        expect(whole).toBe(jsonForScript({ trials, total: sample.total, limit: sample.limit }));
        expect(whole).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(whole)).toEqual({ trials, total: sample.total, limit: 50 });
      }),
    );
  });

  it('is encoded into buffers holding exactly the UTF-8 of the pieces, whatever their sizes', () => {
    const piece = fc.oneof(
      tricky,
      // Lone surrogates as the encoder writes them (JSON text never ends a piece in half a pair).
      fc.string({ unit: 'binary', maxLength: 40 }).map((text) => Buffer.from(text, 'utf8').toString('utf8')),
      fc.constantFrom('x'.repeat((1 << 20) - 5), '\uD83D\uDE00'.repeat(200_000), 'é'.repeat(400_000)),
      // Sized so that, after a one-byte piece, the worst case fills a buffer exactly (1 + 3 × 349,525 = 1 MiB).
      fc.constantFrom('€'.repeat(349_525), 'x'.repeat(349_525)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const chunks = utf8Chunks(pieces);
        expect(Buffer.concat(chunks).equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
        expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('fills a buffer to its last byte when a piece, at 3 bytes a unit, would end exactly at its edge', () => {
    const edge = ((1 << 20) - 1) / 3; // 349,525: after one byte, 3 bytes a unit reach 1 MiB exactly
    expect(utf8Chunks(['x', '€'.repeat(edge)]).map((chunk) => chunk.length)).toEqual([1 << 20]);
    expect(utf8Chunks(['x', 'x'.repeat(edge), 'y']).map((chunk) => chunk.length)).toEqual([edge + 2]);
    // One unit more does not fit: a new buffer.
    expect(utf8Chunks(['x', '€'.repeat(edge + 1)]).map((chunk) => chunk.length)).toEqual([1, 3 * (edge + 1)]);
  });
});
