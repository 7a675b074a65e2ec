import { readFileSync, statSync } from 'node:fs';
import { CassetteLine, ConfigError } from '../../src/spec/index.ts';
import type { ConfigIssue } from '../../src/spec/index.ts';
import { isCassetteLineShape } from '../../src/spec/index.ts';

/** Bad lines named one by one; beyond this a count, so a wrong file cannot flood the terminal. */
const MAX_ISSUES = 10;

/** A cassette line with where it came from, for error messages. */
export interface LocatedLine {
  line: CassetteLine;
  file: string;
  lineNumber: number;
}

/**
 * Read one cassette JSONL file. Every bad line (invalid JSON, wrong shape)
 * is reported with file:line in one ConfigError; blank lines are skipped.
 */
export function readCassetteFile(file: string): LocatedLine[] {
  let text: string;
  try {
    // Reading a FIFO (or a device) would block until someone writes to it: refuse anything but a file.
    if (!statSync(file).isFile())
      throw new ConfigError({
        file,
        message: 'cannot read cassette: not a regular file (a folder, FIFO, socket or device)',
        expected: 'a JSONL file',
      });
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError({
      file,
      message: `cannot read cassette: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      expected: 'a readable JSONL file',
    });
  }
  const lines: LocatedLine[] = [];
  const issues: ConfigIssue[] = [];
  let badLines = 0;
  const report = (issue: ConfigIssue): void => {
    if (issues.length < MAX_ISSUES) issues.push(issue);
  };
  text.split('\n').forEach((raw, index) => {
    const lineNumber = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      badLines += 1;
      report({
        file,
        line: lineNumber,
        message: `invalid JSON: ${(error as Error).message}`,
        expected: 'one JSON object per line',
      });
      return;
    }
    // The cheap check accepts what the schema would return unchanged; anything else goes through the schema.
    if (isCassetteLineShape(value)) {
      lines.push({ line: value, file, lineNumber });
      return;
    }
    const parsed = CassetteLine.safeParse(value);
    if (!parsed.success) {
      badLines += 1;
      for (const issue of parsed.error.issues.slice(0, 3)) {
        report({
          file,
          line: lineNumber,
          field: issue.path.join('.') || undefined,
          message: issue.message,
          expected: 'a cassette line (SPEC §3)',
        });
      }
      return;
    }
    lines.push({ line: parsed.data, file, lineNumber });
  });
  const named = new Set(issues.map((issue) => issue.line)).size;
  if (badLines > named) issues.push({ file, message: `… and ${badLines - named} more bad lines` });
  if (issues.length > 0) throw new ConfigError(issues);
  return lines;
}
