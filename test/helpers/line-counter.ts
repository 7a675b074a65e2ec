/**
 * Counts the complete (newline-terminated) lines of a file that another
 * process is appending to, reading only the bytes added since the last
 * call. The SIGKILL tests poll a trials.jsonl of up to ~1.5 MB every 2 ms
 * while a run writes it; reading the whole file each time kept a core busy
 * in the test process, competing with the very child it waits for.
 *
 * Bytes up to the last newline counted are never read again: a writer only
 * appends, and a resume only cuts a torn tail, which lies after that
 * newline. A file that shrinks below it anyway is counted again from the start.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export function lineCounter(file: string): () => number {
  let counted = 0;
  let offset = 0; // just after the last newline counted
  const chunk = Buffer.alloc(64 * 1024);
  return () => {
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return 0; // not written yet
    }
    if (size < offset) [counted, offset] = [0, 0];
    if (size === offset) return counted;
    const fd = openSync(file, 'r');
    try {
      for (let position = offset; position < size;) {
        const read = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
        if (read === 0) break;
        for (let index = chunk.indexOf(10); index !== -1 && index < read; index = chunk.indexOf(10, index + 1)) {
          counted += 1;
          offset = position + index + 1;
        }
        position += read;
      }
    } finally {
      closeSync(fd);
    }
    return counted;
  };
}
