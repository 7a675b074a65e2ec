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

/** A case of task `t` on surface `s` with the given counts, verdicts and errors. */
function failingCase(fields: Record<string, unknown>) {
  return {
    provider: 'p',
    model: 'm',
    domain: 'd',
    surface: 's',
    split: 'train',
    task: 't',
    kind: 'must-call',
    latencyMs: 1,
    ...fields,
  };
}

/** junit.xml of these cases alone, at this gate. */
function junitOf(outcomes: unknown[], junitMinSuccess: number): string {
  return renderJunit(
    { outcomes, summary: { run_id: 'r' }, synthetic: false, facts: { progress: {} } } as never,
    { junit_min_success: junitMinSuccess } as never,
  );
}

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
        const outcome = failingCase({
          trials: 2,
          completed: 1,
          successes: 0,
          errored: 1,
          outcomes: ['fail', 'errored'],
          failingGraders: { action: 1 },
          failedTrials: [{ trial: 0, verdicts: [verdict] }],
          errorMessages: [error],
        });
        const junit = junitOf([outcome], 0.5);
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

  it("escapes a failing case's message and details as their whole text, however many trials and verdicts repeat", () => {
    // junit.xml escapes each verdict line once and puts the pieces together (junit.ts): the same bytes as escaping the whole.
    fc.assert(
      fc.property(tricky, tricky, tricky, (first, second, grader) => {
        const failedTrials = [
          { trial: 0, verdicts: [first, second] },
          { trial: 3, verdicts: [] },
          { trial: 4, verdicts: [second, first, first] },
        ];
        const outcome = failingCase({
          trials: 4,
          completed: 4,
          successes: 1,
          errored: 0,
          outcomes: ['fail', 'pass', 'fail', 'fail'],
          failingGraders: { [grader]: 3 },
          failedTrials,
          errorMessages: [],
        });
        const junit = junitOf([outcome, { ...outcome, task: 'u' }], 0.8);
        const details = failedTrials
          .map(
            (failed) =>
              `trial ${failed.trial}:\n${failed.verdicts.map((verdict) => `  - ${verdict}`).join('\n') || '  (no failing verdict recorded)'}`,
          )
          .join('\n');
        const message = `task success 1/4 (25%) < 80%; failing verdicts: ${grader} ×3`;
        const text = chainedEscape(details).replace(/&#10;/g, '\n');
        return (
          junit.split(`<failure message="${chainedEscape(message)}" type="task_failure">${text}</failure>`).length === 3
        );
      }),
      { numRuns: 500 },
    );
  });
});
