import { RE2JS } from 're2js';

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
