/**
 * Escaping for report.md and the compare PR comment. Their cells carry user
 * strings — a cassette's model name, task and surface ids, error messages —
 * and the file is pasted into PR comments, where GitHub renders Markdown
 * and some HTML. So every cell is escaped for both: a model named
 * `<img src=x onerror=alert(1)>|x` shows as that text, in one cell.
 */

/** Plain text in a table cell or a line: HTML and Markdown punctuation escaped, one line. */
export function markdownCell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\|*_[\]~]/g, (character) => `\\${character}`)
    .replace(/`/g, "'")
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * Text as inline code, with its backticks. Inside a code span nothing is
 * Markdown or HTML, except the table's pipe (escaped: GitHub splits cells
 * before reading spans) and a backtick (which would end the span).
 */
export function markdownCode(text: string): string {
  return `\`${text
    .replace(/[\r\n]+/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/`/g, "'")}\``;
}
