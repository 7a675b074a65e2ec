import {
  DASH,
  NEWLINE,
  SPACE,
  DOUBLE_QUOTE,
  SINGLE_QUOTE,
  BACKSLASH,
  isJsonEscape,
  SIMPLE_DOUBLE_QUOTED,
  UNSURE,
} from './plain-yaml-tokens.ts';

/**
 * The plain YAML reader's scalars that span more than a plain word: quoted
 * scalars and the plainest folded block scalar (src/load/plain-yaml.ts,
 * whose exactness rules they follow: anything unsure throws UNSURE and
 * js-yaml reads the file).
 */

/** What these readers use of the plain reader: its text and position (left after the scalar) and two of its helpers. */
export interface ScalarCursor {
  readonly text: string;
  position: number;
  /** The text between two offsets (sharing the reader's Latin-1 decoding). */
  slice(start: number, end: number): string;
  /** Column of the first non-space character of the line starting at `lineStart`. */
  indentAt(lineStart: number): number;
}

/** A one-line double-quoted scalar using only the escapes YAML and JSON share. */
export function doubleQuoted(cursor: ScalarCursor): string {
  const text = cursor.text;
  const start = cursor.position + 1;
  // Most are one line without escapes: matched by the regular expression engine, not character by character.
  SIMPLE_DOUBLE_QUOTED.lastIndex = cursor.position;
  if (SIMPLE_DOUBLE_QUOTED.test(text)) {
    cursor.position = SIMPLE_DOUBLE_QUOTED.lastIndex;
    return cursor.slice(start, cursor.position - 1);
  }
  let at = start;
  let escaped = false;
  for (;;) {
    const code = text.charCodeAt(at);
    if (code === DOUBLE_QUOTE) break;
    if (code === NEWLINE || at >= text.length) throw UNSURE;
    if (code === BACKSLASH) {
      if (!isJsonEscape(text.charCodeAt(at + 1))) throw UNSURE;
      escaped = true;
      at += 2;
      continue;
    }
    at++;
  }
  cursor.position = at + 1;
  if (!escaped) return cursor.slice(start, at);
  try {
    return JSON.parse(text.slice(start - 1, at + 1)) as string;
  } catch {
    throw UNSURE; // e.g. a short \u escape
  }
}

/** A one-line single-quoted scalar (`''` is a quote). */
export function singleQuoted(cursor: ScalarCursor): string {
  const text = cursor.text;
  const start = cursor.position + 1;
  let at = start;
  let doubled = false;
  for (;;) {
    const code = text.charCodeAt(at);
    if (code === NEWLINE || at >= text.length) throw UNSURE;
    if (code === SINGLE_QUOTE) {
      if (text.charCodeAt(at + 1) !== SINGLE_QUOTE) break;
      doubled = true;
      at += 2;
      continue;
    }
    at++;
  }
  cursor.position = at + 1;
  const raw = cursor.slice(start, at);
  return doubled ? raw.replaceAll("''", "'") : raw;
}

/**
 * A folded block scalar with strip chomping (`key: >-`, as hand-written suites wrap a long
 * description) in its simplest form: the header alone on its line, then lines of one
 * indentation (more than the key's), none blank, none ending in a space; its value is
 * those lines joined by single spaces. Blank lines after it (before a less indented line
 * or the end) are stripped, as `-` says. Anything else is js-yaml's.
 */
export function foldedStripped(cursor: ScalarCursor, indent: number): string {
  const text = cursor.text;
  if (text.charCodeAt(cursor.position + 1) !== DASH || text.charCodeAt(cursor.position + 2) !== NEWLINE) throw UNSURE;
  let at = cursor.position + 3;
  let lineIndent = -1;
  let value = '';
  for (;;) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const column = cursor.indentAt(at);
    if (at >= text.length || at + column === end) {
      // A blank line (or the end): the scalar ends here when no more of it follows.
      if (column > 0) throw UNSURE;
      const next = at >= text.length ? -1 : lineAfterBlanks(text, at);
      if (next !== -1 && cursor.indentAt(next) > indent) throw UNSURE;
      break;
    }
    if (lineIndent === -1) {
      if (column <= indent) throw UNSURE;
      lineIndent = column;
    } else if (column !== lineIndent) {
      if (column > indent) throw UNSURE;
      break;
    }
    if (text.charCodeAt(end - 1) === SPACE) throw UNSURE;
    value += (value === '' ? '' : ' ') + cursor.slice(at + column, end);
    if (end >= text.length) {
      at = end;
      break;
    }
    at = end + 1;
  }
  if (lineIndent === -1) throw UNSURE;
  cursor.position = at;
  return value;
}

/** The start of the first line from `lineStart` on that is not empty, or -1 at the end of the text. */
function lineAfterBlanks(text: string, lineStart: number): number {
  let at = lineStart;
  while (at < text.length && text.charCodeAt(at) === NEWLINE) at++;
  return at < text.length ? at : -1;
}
