/**
 * Error messages quote the user's input (a value, a line of a file), and
 * that input may hold bytes a terminal acts on: an escape sequence can
 * recolour, retitle or clear the screen, a NUL or backspace hide text. Every
 * control character except the newline (messages are multi-line) and the tab
 * is shown as a visible escape: `\x1b`, `\u0085`.
 */
export function printable(text: string): string {
  // C0 controls but \t and \n, DEL, C1 controls, and the line/paragraph separators.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (character) => {
    const code = character.charCodeAt(0);
    if (character === '\r') return '\\r';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
