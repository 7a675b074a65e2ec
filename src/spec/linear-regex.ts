import { createRequire } from 'node:module';
import type { RE2JS as RE2JSClass } from 're2js';

// Required on the first pattern (its CommonJS build: the same code as its ES module), not imported
// with this module: most suites have no pattern, and re2js is ~0.27 MB of JavaScript that a run
// compiled before its load started. Nothing else holds an RE2JS object, so the one copy is this.
let engine: typeof RE2JSClass | undefined;
function re2js(): typeof RE2JSClass {
  return (engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS);
}

/**
 * Regular expressions from task files (`{regex: …}` constraints,
 * `ask_about.regex`) are matched against text a model wrote, so a pattern
 * like `^(a+)+$` must not let a crafted argument hang the grader. They are
 * compiled by RE2JS, a linear-time engine (no backtracking): the price is
 * that backreferences (`\1`) and lookaround (`(?=…)`, `(?<!…)`) are not
 * supported, and `validate` says so instead of accepting them.
 */
export interface LinearRegex {
  /** Does the pattern match anywhere in the text (like `RegExp.test` without the `g` flag)? */
  test(text: string): boolean;
}

/** Compile a task's pattern, or return why it cannot be (a message for the load error). */
export function compileLinearRegex(
  source: string,
  options: { ignoreCase?: boolean } = {},
): { regex: LinearRegex } | { error: string } {
  try {
    const RE2JS = re2js();
    const compiled = RE2JS.compile(source, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    return { regex: { test: (text) => compiled.matcher(text).find() } };
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '');
    const unsupported = /invalid escape sequence: `\\[1-9]|Perl syntax: `\(\?<?[=!]/.test(message)
      ? ' (backreferences and lookaround are not supported: patterns run on a linear-time engine so a crafted argument cannot hang toolmark; rewrite the pattern without them)'
      : '';
    return { error: `${message}${unsupported}` };
  }
}
