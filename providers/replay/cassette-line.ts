import { CassetteLine, isCassetteLineShape } from '../../src/spec/index.ts';
import { checkLineJson, type CheckedLine } from './cassette-file.ts';

/**
 * One line's text checked against the spec's `CassetteLine`: the line, its
 * issues (file:line, field, what was expected), or null for a blank line.
 */
export function checkCassetteLine(raw: string, file: string, lineNumber: number): CheckedLine {
  return checkLineJson(raw, file, lineNumber, (value) => {
    // The cheap check accepts what the schema would return unchanged; anything else goes through the schema.
    if (isCassetteLineShape(value)) return { line: value, asWritten: true };
    const parsed = CassetteLine.safeParse(value);
    if (parsed.success) return { line: parsed.data };
    return {
      issues: parsed.error.issues.slice(0, 3).map((issue) => ({
        file,
        line: lineNumber,
        field: issue.path.join('.') || undefined,
        message: issue.message,
        expected: 'a cassette line (SPEC §3)',
      })),
    };
  });
}
