import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearRegex } from '../../src/spec/linear-regex.ts';
import { isPlainLinearPattern } from '../../src/spec/plain-pattern.ts';

// `isPlainLinearPattern` lets the load skip RE2JS for a task pattern
// (src/spec/plain-pattern.ts). It may say false to anything, but true only
// for a pattern RE2JS compiles, with and without case folding.

const compiles = (source: string, ignoreCase = false) => !('error' in compileLinearRegex(source, { ignoreCase }));

// Pieces the fast path knows, and some it leaves to RE2JS.
const PIECES = [
  ...'aZ0 _-.:/#*+?()[]^$|\\{},=!<>é',
  '\\d',
  '\\w',
  '\\b',
  '\\B',
  '\\.',
  '\\1',
  '\\p',
  '\\x',
  '(?:',
  '(?=',
  '(?!',
  '(?i)',
  '(?P<n>',
  '[a-z]',
  '[z-a]',
  '[A-Za-z0-9_-]',
  '[^0-9]',
  '[:alpha:]',
  '[[:alpha:]]',
  '[a-]',
  '[-a]',
  '[]',
  '[^]',
  '[.*+?]',
  '{2}',
  '{1,3}',
  '*?',
  '??',
  '**',
];

describe('isPlainLinearPattern', () => {
  it('says true only for patterns RE2JS compiles (with and without case folding)', () => {
    let plain = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), (pieces) => {
        const source = pieces.join('');
        if (!isPlainLinearPattern(source)) return;
        plain++;
        expect(compiles(source), source).toBe(true);
        expect(compiles(source, true), source).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    // The property is not vacuous: many generated patterns are plain.
    expect(plain).toBeGreaterThan(500);
  });

  it('takes the shapes task patterns have, and leaves the rest to RE2JS', () => {
    for (const source of ['[Ff]jord', '[Hh]arbor', '^T-\\d+$', 'refund|credit', '(?:a|b)+c?', '^[A-Z]\\s*$'])
      expect(isPlainLinearPattern(source), source).toBe(true);
    for (const source of [
      '',
      '(a)\\1',
      '^(?!x)',
      'a{2}',
      '(?i)a',
      '[[:alpha:]]',
      'é',
      'a**',
      '(',
      ')',
      'a|',
      '()',
      '[z-a]',
    ])
      expect(isPlainLinearPattern(source), source).toBe(false);
  });
});
