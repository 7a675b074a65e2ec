import type { Options } from 'ajv';
import { compileLinearRegex } from '../../spec/linear-regex.ts';

/**
 * ajv's regular-expression engine for `pattern` and `patternProperties`:
 * RE2JS (linear time, src/spec/linear-regex.ts) instead of JavaScript's
 * backtracking RegExp, so a model's crafted argument cannot make a schema
 * check like `^(a+)+$` run for hours. A pattern RE2 cannot run
 * (a backreference, lookaround) throws, which ajv's compile passes on: the
 * schema is refused at load time with the reason (JsonSchemaError).
 */
/** ajv's `RegExpEngine` type (not exported from its entry point). */
type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

export const linearPatternEngine: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = compileLinearRegex(pattern);
    if ('error' in compiled) throw new Error(`pattern ${JSON.stringify(pattern)}: ${compiled.error}`);
    // ajv caches compiled patterns by toString(): it must tell patterns apart.
    return { test: (text: string) => compiled.regex.test(text), toString: () => `re2:${pattern}` };
  },
  // Only used for ajv's standalone code generation, which toolmark does not use.
  { code: 'linearPatternEngine' },
);
