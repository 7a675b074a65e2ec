import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeJsonForScript, jsonForScript } from '../../src/report/html/escape.ts';
import { embeddedTrials, embeddedTrialsText } from '../../src/report/html/page.ts';
import type { RunData } from '../../src/report/run-data.ts';

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

  it('is the same text made whole (a small run) as made trial by trial (a large run), and jsonForScript of the sample', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ task: tricky, final_text: fc.option(tricky), trial: fc.nat() })), (trials) => {
        const sample = { trials, total: trials.length + 3, limit: 50 } as unknown as RunData['sample'];
        const whole = embeddedTrialsText(sample);
        expect(whole).toBe([...embeddedTrials(sample)].join(''));
        expect(whole).toBe(jsonForScript({ trials: sample.trials, total: sample.total, limit: sample.limit }));
        expect(whole).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(whole)).toEqual({ trials, total: sample.total, limit: 50 });
      }),
    );
  });
});
