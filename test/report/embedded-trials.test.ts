import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeJsonForScript } from '../../src/report/html/escape.ts';
import { embeddedTrials, pageText } from '../../src/report/html/page.ts';
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

  it('is the JSON of the sample escaped for the script element, each trial the bytes the sample kept', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ task: tricky, final_text: fc.option(tricky), trial: fc.nat() })), (trials) => {
        const sampled = trials.map((trial) => ({
          ...trial,
          surface: 's',
          model: 'm',
          bytes: new TextEncoder().encode(escapeJsonForScript(JSON.stringify(trial))),
        }));
        const sample = { trials: sampled, total: trials.length + 3, limit: 50 } as RunData['sample'];
        const chunks = [...embeddedTrials(sample)];
        // The kept bytes themselves, not copies.
        expect(chunks.filter((chunk) => typeof chunk !== 'string')).toEqual(sampled.map((trial) => trial.bytes));
        expect(
          chunks.filter((chunk) => typeof chunk !== 'string').every((chunk, index) => chunk === sampled[index]!.bytes),
        ).toBe(true);
        const whole = pageText(chunks);
        expect(whole).toBe(jsonForScript({ trials, total: sample.total, limit: sample.limit }));
        expect(whole).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(whole)).toEqual({ trials, total: sample.total, limit: 50 });
      }),
    );
  });
});
