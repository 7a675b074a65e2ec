import type { Constraint } from '../spec/index.ts';
import { compileLinearRegex } from '../spec/linear-regex.ts';
import { isPlainLinearPattern } from '../spec/plain-pattern.ts';
import { closest } from '../spec/suggest.ts';

const OPERATORS = ['regex', 'one_of', 'contains', 'any', 'default'] as const;

/**
 * Problems zod's union cannot see: `Constraint` accepts any JSON value as a
 * literal, so `{regx: "^T-"}` or `{regex: 5}` would silently become a literal
 * object to compare against. An object whose only key is (or nearly is) an
 * operator is read as an operator and checked; a regex must compile on the
 * linear-time engine the graders use (src/spec/linear-regex.ts).
 * Returns a message and an optional suggestion, or null when fine.
 */
export function checkConstraint(value: Constraint): { message: string; expected?: string; suggestion?: string } | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  const operator = keys.find((key) => (OPERATORS as readonly string[]).includes(key));
  const record = value as Record<string, unknown>;
  if (operator !== undefined && keys.length > 1) {
    return {
      message: `constraint mixes the operator "${operator}" with other keys (${keys.filter((key) => key !== operator).join(', ')})`,
      expected: 'one operator per constraint: {regex}, {one_of}, {contains}, {any: true} or {default}',
    };
  }
  if (operator === undefined) {
    if (keys.length !== 1) return null;
    const near = closest(keys[0]!, OPERATORS);
    return near
      ? {
          message: `unknown constraint operator "${keys[0]}"`,
          expected: 'regex, one_of, contains, any or default (a literal object would need more than one key)',
          suggestion: near,
        }
      : null;
  }
  const argument = record[operator];
  switch (operator) {
    case 'regex':
      if (typeof argument !== 'string')
        return { message: 'regex must be a string', expected: 'a JavaScript regular expression as a string' };
      return regexProblem(argument);
    case 'one_of':
      return Array.isArray(argument) && argument.length > 0
        ? null
        : { message: 'one_of must be a non-empty list', expected: 'a list of allowed values' };
    case 'contains':
      return typeof argument === 'string'
        ? null
        : { message: 'contains must be a string', expected: 'a substring the value must contain' };
    case 'default':
      // Any JSON value is a default; YAML `{default: }` (null) is a default of null.
      return null;
    default:
      return argument === true ? null : { message: 'any must be true', expected: '{any: true}' };
  }
}

/**
 * A task pattern that the graders' linear-time engine cannot compile, as a load problem; null when it compiles.
 * A plain pattern certainly does: the engine is not even loaded (src/spec/plain-pattern.ts).
 */
export function regexProblem(source: string, options: { ignoreCase?: boolean } = {}): { message: string } | null {
  if (isPlainLinearPattern(source)) return null;
  const compiled = compileLinearRegex(source, options);
  return 'error' in compiled ? { message: `regex does not compile: ${compiled.error}` } : null;
}
