import { openSync, readSync, statSync } from 'node:fs';
// Never the spec's index, nor zod: the cassette worker imports this module (cassette-prefetch.ts).
import { ConfigError, type ConfigIssue } from '../../src/spec/errors.ts';
import { jsonlLines, jsonlLinesOf, type ReadAt } from '../../src/spec/jsonl-lines.ts';
import type { CassetteLine } from '../../src/spec/cassette.ts';

/** Bad lines named one by one; beyond this a count, so a wrong file cannot flood the terminal. */
const MAX_ISSUES = 10;

/** A cassette line with where it came from, for error messages. */
export interface LocatedLine {
  line: CassetteLine;
  file: string;
  lineNumber: number;
}

/** Where a line's bytes are in its file, so it can be read again when it is used. */
export interface LineBytes {
  offset: number;
  length: number;
}

/**
 * One line's text checked: the line, its issues, or null for a blank line.
 * `asWritten`: the line is the JSON of the text itself, which the structural
 * check took (not what the schema made of it: defaults filled in, keys
 * stripped) — so it holds no key the schema does not name.
 */
export type CheckedLine = { line: CassetteLine; asWritten?: boolean } | { issues: ConfigIssue[] } | null;

/**
 * How a line's text is checked: `checkCassetteLine` (cassette-line.ts: the
 * spec's schema); the cassette worker's own check needs no zod
 * (cassette-worker.ts).
 */
export type LineCheck = (raw: string, file: string, lineNumber: number) => CheckedLine;

/**
 * Open a cassette for reading: anything but a regular file is refused (a
 * FIFO would block until someone writes to it), and so is a file that
 * cannot be opened. The caller owns the descriptor.
 */
export function openCassette(file: string): number {
  try {
    if (!statSync(file).isFile())
      throw new ConfigError({
        file,
        message: 'cannot read cassette: not a regular file (a folder, FIFO, socket or device)',
        expected: 'a JSONL file',
      });
    return openSync(file, 'r');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw readFailure(file, error);
  }
}

/** A cassette that could not be opened or read: the system's error code, file named. */
export function readFailure(file: string, error: unknown): ConfigError {
  return new ConfigError({
    file,
    message: `cannot read cassette: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    expected: 'a readable JSONL file',
  });
}

/**
 * Walk the lines of an open cassette (its descriptor, or its bytes read
 * whole), checking every one (`check`): each good line goes to `take` with
 * its bytes' place in the file (and its text, when the line is that JSON
 * as written: CheckedLine); every bad line (invalid JSON, wrong shape)
 * is reported with file:line in one ConfigError thrown at the end, before
 * anything is run. Blank lines are skipped. A descriptor is read in
 * chunks; either way only one line's objects exist at a time.
 */
export function walkCassette(
  from: number | Buffer,
  file: string,
  take: (line: CassetteLine, lineNumber: number, bytes: LineBytes, written: string | null) => void,
  check: LineCheck,
): void {
  const issues: ConfigIssue[] = [];
  let badLines = 0;
  const lines = typeof from === 'number' ? jsonlLines(readsOf(from, file)) : jsonlLinesOf(from);
  for (const { text, line: lineNumber, offset, length } of lines) {
    const checked = check(text, file, lineNumber);
    if (checked === null) continue;
    if ('line' in checked) {
      take(checked.line, lineNumber, { offset, length }, checked.asWritten ? text : null);
      continue;
    }
    badLines += 1;
    for (const issue of checked.issues) if (issues.length < MAX_ISSUES) issues.push(issue);
  }
  const named = new Set(issues.map((issue) => issue.line)).size;
  if (badLines > named) issues.push({ file, message: `… and ${badLines - named} more bad lines` });
  if (issues.length > 0) throw new ConfigError(issues);
}

/** Reads of an open cassette; a failed read is a ConfigError naming the file. */
function readsOf(descriptor: number, file: string): ReadAt {
  return (into, at, position) => {
    try {
      return readSync(descriptor, into, at, into.length - at, position);
    } catch (error) {
      throw readFailure(file, error);
    }
  };
}

/**
 * A line's text parsed as JSON and the value judged by `judge`; an issue
 * naming file:line when it is not JSON, null for a blank line.
 */
export function checkLineJson(
  raw: string,
  file: string,
  lineNumber: number,
  judge: (value: unknown) => CheckedLine,
): CheckedLine {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    if (raw.trim() === '') return null;
    return {
      issues: [
        {
          file,
          line: lineNumber,
          message: `invalid JSON: ${(error as Error).message}`,
          expected: 'one JSON object per line',
        },
      ],
    };
  }
  return judge(value);
}
