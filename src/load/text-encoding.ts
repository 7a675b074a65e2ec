import type { ConfigIssue } from '../spec/index.ts';

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * The text of a suite file, which must be UTF-8. A UTF-8 byte-order mark
 * (Windows editors write one) is dropped, since YAML would otherwise read it
 * as an invisible first character. UTF-16 (a BOM, or the NUL bytes every
 * ASCII character has in UTF-16) would otherwise parse into kilobytes of
 * `\u0000` errors, so it is one issue instead; so is any other NUL byte (a
 * binary file). Returns null when the file cannot be read as text.
 */
export function decodeSuiteText(bytes: Buffer, file: string, issues: ConfigIssue[]): string | null {
  const utf16 =
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0xfe && bytes[1] === 0xff) ||
    (bytes.length >= 2 && (bytes[0] === 0 || bytes[1] === 0) && bytes[0] !== bytes[1]);
  if (utf16) {
    issues.push({ file, message: 'file is UTF-16; save it as UTF-8', expected: 'a UTF-8 text file' });
    return null;
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const line = bytes.subarray(0, nul).toString('utf8').split('\n').length;
    issues.push({ file, line, message: 'file holds a NUL byte: not a text file', expected: 'a UTF-8 text file' });
    return null;
  }
  const start = UTF8_BOM.every((byte, index) => bytes[index] === byte) ? UTF8_BOM.length : 0;
  return bytes.toString('utf8', start);
}
