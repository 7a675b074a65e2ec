import { CORE_SCHEMA } from 'js-yaml';

// The character classes, token patterns and scalar resolution of the plain
// YAML reader (src/load/plain-yaml.ts): what may start a key or a plain
// scalar, which escapes JSON shares, and what a plain scalar means under
// js-yaml's core schema.

/**
 * Characters js-yaml refuses anywhere (its non-printable check, lone
 * surrogates included), and ones this reader leaves to it: tabs, CRs, NEL,
 * the Unicode line separators and byte-order marks.
 */
export const OUTSIDE =
  // eslint-disable-next-line no-control-regex
  /[\x00-\x09\x0B-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;

/** Character codes the reader compares with, in the order of the string they are read from. */
export const [SPACE, NEWLINE, HASH, COLON, DASH, COMMA, DOUBLE_QUOTE, SINGLE_QUOTE, BACKSLASH] = codes(' \n#:-,"\'\\');
export const [OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = codes('[]{}');

function codes(characters: string): number[] {
  return [...characters].map((character) => character.charCodeAt(0));
}

/** A letter, a digit or `_`. */
function isKeyStart(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x5f
  );
}

/** Characters a plain scalar may not start with: YAML's indicators (`-` only when a space follows, handled apart). */
function isIndicator(code: number): boolean {
  return (
    code === 0x3f || // ?
    code === COLON ||
    code === COMMA ||
    code === OPEN_BRACKET ||
    code === CLOSE_BRACKET ||
    code === OPEN_BRACE ||
    code === CLOSE_BRACE ||
    code === HASH ||
    code === 0x26 || // &
    code === 0x2a || // *
    code === 0x21 || // !
    code === 0x7c || // |
    code === 0x3e || // >
    code === SINGLE_QUOTE ||
    code === DOUBLE_QUOTE ||
    code === 0x25 || // %
    code === 0x40 || // @
    code === 0x60 // `
  );
}

/**
 * May a plain scalar start here? Not with an indicator; `-` (YAML also lets
 * `?` and `:` start one, which is left to js-yaml) only before a letter,
 * digit or `.`, as in `-1` or `-x`: before a space, a line end or a flow
 * indicator it means something else.
 */
export function canStartPlain(text: string, at: number): boolean {
  const first = text.charCodeAt(at);
  if (first !== DASH) return !isIndicator(first);
  const next = text.charCodeAt(at + 1);
  return isKeyStart(next) || next === 0x2e;
}

/** The escapes YAML and JSON share with the same meaning; any other makes the reader unsure. */
export function isJsonEscape(code: number): boolean {
  return (
    code === DOUBLE_QUOTE ||
    code === BACKSLASH ||
    code === 0x2f || // /
    code === 0x62 || // b
    code === 0x66 || // f
    code === 0x6e || // n
    code === 0x72 || // r
    code === 0x74 || // t
    code === 0x75 // u
  );
}

export const ASCII = /^[\x00-\x7F]*$/;

/** Only line feeds and printable ASCII: no character of OUTSIDE, and ASCII. */
export const PRINTABLE_ASCII = /^[\n\x20-\x7E]*$/;

/**
 * Sticky patterns (matched at `lastIndex`) for the commonest tokens; the
 * regular expression engine runs them as machine code from the first file
 * on, where a loop over characters would run in the interpreter first.
 */
/** A key and its `:`, before a space, a line end or the end of the text (keys are at most 1,000 characters). */
export const KEY = /[A-Za-z0-9_][A-Za-z0-9_.\/-]{0,999}:(?=[ \n]|$)/y;
/** A plain scalar in a flow collection: no `,`, brackets, `#` or line end; `:` only before another character of it. */
export const FLOW_PLAIN = /(?:[^,[\]{}#:\n]|:(?![ ,[\]{}\n]|$))+/y;
/** A double-quoted scalar on one line without escapes. */
export const SIMPLE_DOUBLE_QUOTED = /"[^"\\\n]*"/y;

/** A list built by `push` has room for 17 items; a copy has room for what it holds (a task's one message). */
export function fitted(items: unknown[]): unknown[] {
  return items.length < 17 ? items.slice() : items;
}

/**
 * The first characters of every plain scalar the core schema may read as
 * other than a string (`null`, `~`, `true`, `False`, `-1`, `.5`), from the
 * schema's own tags; null when a tag may match any first character.
 */
const IMPLICIT_STARTS = (() => {
  const starts = new Set<string>();
  for (const tag of CORE_SCHEMA.tags) {
    if (tag.nodeKind !== 'scalar' || !tag.implicit) continue;
    if (tag.implicitFirstChars === null) return null;
    for (const first of tag.implicitFirstChars) starts.add(first);
  }
  return starts;
})();

/** A plain scalar as js-yaml's core schema reads it (null, booleans, numbers, else the text). */
export function resolvePlain(source: string): unknown {
  // `desk.get_weather` cannot be anything but a string: no need to ask each tag.
  if (IMPLICIT_STARTS !== null && source !== '' && !IMPLICIT_STARTS.has(source[0]!)) return source;
  return CORE_SCHEMA.resolveImplicitScalarTag(source).value;
}

/** Thrown by the plain reader (src/load/plain-yaml.ts, plain-yaml-scalars.ts) when the text leaves its subset; `parsePlain` catches it. */
class Unsure extends Error {}
export const UNSURE = new Unsure();
