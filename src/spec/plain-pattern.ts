/**
 * Task patterns that the linear-time engine certainly compiles, by their
 * shape alone (issue 20).
 *
 * `validate` compiles every task pattern (`{regex: …}`, `ask_about.regex`)
 * on RE2JS only to refuse what it cannot run (src/spec/linear-regex.ts);
 * its first use loads re2js, ~0.27 MB of JavaScript: ~10–25 ms of the
 * shipped example's `validate`, whose three patterns are like `[Ff]jord`.
 * A pattern built only of what follows cannot fail to compile, so the load
 * need not ask: literal ASCII letters, digits, space and punctuation
 * without meaning; `.`, `^`, `$`; the escapes `\d \w \s \D \W \S \b \B`
 * and of a metacharacter; a class of literals and ascending ranges between
 * letters or digits (`[^A-Za-z0-9_-]`); `*`, `+`, `?` (each may be lazy)
 * after an atom; groups `( )` and `(?: )` and `|`, none empty. Anything
 * else — `{n,m}`, other escapes, flags, lookaround, backreferences, POSIX
 * classes, non-ASCII — goes to RE2JS as before, which words the error. It
 * may say false to a valid pattern, but true only to one RE2JS compiles
 * (test/spec/plain-pattern.test.ts checks it against RE2JS). The graders
 * still compile every pattern on RE2JS when they use it.
 */

/** Outside a class, the characters that stand for themselves. */
const LITERAL = /[A-Za-z0-9 _\-:,/@#%&='"!~<>;`]/;
/** Inside a class, the characters that stand for themselves (`-` only first or last; ranges apart). */
const CLASS_LITERAL = /[A-Za-z0-9 _:,/@#%&='"!~<>;`.*+?(){}|$]/;
const ESCAPED = new Set([...'dwsDWSbB.*+?()[]{}|^$\\/-']);
/** Longer patterns, or deeper groups, are left to RE2JS. */
const MAX_LENGTH = 1000;
const MAX_DEPTH = 32;

/** Does RE2JS certainly compile `source` (with or without case folding)? */
export function isPlainLinearPattern(source: string): boolean {
  if (source.length === 0 || source.length > MAX_LENGTH) return false;
  let at = 0;
  let depth = 0;
  /** Can a quantifier follow what came last (an atom, not an anchor, quantifier, `(` or `|`)? */
  let quantifiable = false;
  /** Is the current alternative (since the start, `(` or `|`) still empty? */
  let empty = true;
  while (at < source.length) {
    const char = source[at]!;
    if (char === '*' || char === '+' || char === '?') {
      if (!quantifiable) return false;
      at += source[at + 1] === '?' ? 2 : 1;
      quantifiable = false;
      continue;
    }
    if (char === '(') {
      if (source[at + 1] === '?') {
        if (source[at + 2] !== ':') return false;
        at += 2;
      }
      if (++depth > MAX_DEPTH) return false;
      at += 1;
      quantifiable = false;
      empty = true;
      continue;
    }
    if (char === ')' || char === '|') {
      if (empty || (char === ')' && --depth < 0)) return false;
      at += 1;
      quantifiable = char === ')';
      empty = char === '|';
      continue;
    }
    empty = false;
    if (char === '^' || char === '$') {
      at += 1;
      quantifiable = false;
      continue;
    }
    if (char === '\\') {
      const escaped = source[at + 1] ?? '';
      if (!ESCAPED.has(escaped)) return false;
      at += 2;
      // A word boundary is an anchor: nothing to repeat.
      quantifiable = escaped !== 'b' && escaped !== 'B';
      continue;
    }
    if (char === '[') {
      at = classEnd(source, at);
      if (at < 0) return false;
    } else if (char === '.' || LITERAL.test(char)) at += 1;
    else return false;
    quantifiable = true;
  }
  return depth === 0 && !empty;
}

/** Where the plain class opening at `start` ends (just past its `]`), or -1. */
function classEnd(source: string, start: number): number {
  let at = start + 1;
  if (source[at] === '^') at += 1;
  const first = at;
  while (at < source.length && source[at] !== ']') {
    const char = source[at]!;
    if (char === '-') {
      // A literal `-` only first or last; a range is read whole below.
      if (at !== first && source[at + 1] !== ']') return -1;
      at += 1;
      continue;
    }
    if (!CLASS_LITERAL.test(char)) return -1;
    if (source[at + 1] === '-' && source[at + 2] !== ']' && at + 2 < source.length) {
      if (!isRange(char, source[at + 2]!)) return -1;
      at += 3;
    } else at += 1;
  }
  return at < source.length && at > first ? at + 1 : -1;
}

/** `low-high` within one of a–z, A–Z, 0–9, ascending. */
function isRange(low: string, high: string): boolean {
  const within = (from: string, to: string) => low >= from && high <= to && low <= high;
  return within('a', 'z') || within('A', 'Z') || within('0', '9');
}
