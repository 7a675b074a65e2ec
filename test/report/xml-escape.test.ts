import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderJunit, xmlEscape } from '../../src/report/index.ts';

/** xmlEscape as it was before the one-pass escape: the forbidden characters dropped, then a replacement per entity. */
function chainedEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(
        /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
        '',
      )
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      .replace(/\r/g, '&#13;')
      .replace(/\n/g, '&#10;')
  );
}

/** Strings made of the characters that matter here: entities, newlines, controls, surrogates (paired and lone), and `&#10;` itself. */
const tricky = fc
  .array(
    fc.constantFrom(
      'a',
      'z',
      ' ',
      '&',
      '<',
      '>',
      '"',
      "'",
      '\r',
      '\n',
      '\t',
      '\u0000',
      '\u0001',
      '\u000B',
      '\u001F',
      '\uFFFE',
      '\uFFFF',
      '\uD83D\uDE00',
      '\uD800',
      '\uDC00',
      'é',
      '&#10;',
      '&amp;',
      ']]>',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('xmlEscape', () => {
  it('escapes exactly as the chain of replacements did, for attributes', () => {
    fc.assert(
      fc.property(fc.oneof(tricky, fc.string({ unit: 'binary' })), (text) => xmlEscape(text) === chainedEscape(text)),
      {
        numRuns: 2000,
      },
    );
  });

  it('keeps text content as it was: escaped, its newlines readable', () => {
    // A failing case's details and its notes are text content; attributes encode newlines, text keeps them.
    fc.assert(
      fc.property(tricky, tricky, (verdict, error) => {
        const outcome = {
          provider: 'p',
          model: 'm',
          domain: 'd',
          surface: 's',
          split: 'train',
          task: 't',
          kind: 'must-call',
          trials: 2,
          completed: 1,
          successes: 0,
          errored: 1,
          outcomes: ['fail', 'errored'],
          failingGraders: { action: 1 },
          failedTrials: [{ trial: 0, verdicts: [verdict] }],
          errorMessages: [error],
          latencyMs: 1,
        };
        const junit = renderJunit(
          { outcomes: [outcome], summary: { run_id: 'r' }, synthetic: false, facts: { progress: {} } } as never,
          { junit_min_success: 0.5 } as never,
        );
        const text = (raw: string) => chainedEscape(raw).replace(/&#10;/g, '\n');
        return (
          junit.includes(`type="task_failure">${text(`trial 0:\n  - ${verdict}`)}</failure>`) &&
          junit.includes(
            `<system-out>${text(`trials: fail errored\n1 errored trial(s) not counted: ${error}`)}</system-out>`,
          )
        );
      }),
      { numRuns: 500 },
    );
  });
});
