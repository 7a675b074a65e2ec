import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Whole files read into one reused buffer, not a new one per file.
 *
 * Why: loading a 100,000-task suite reads its ~100 task files four times
 * (the domain's digest before and after loading, the parse, the run's
 * grading inputs), ~20 MB each time. `readFileSync` gives each file a
 * buffer of its own, allocated outside the JavaScript heap with malloc and
 * freed only when a collection finds it garbage; a file of more than
 * 128 KB first gets its own mapping, but once one is freed glibc raises
 * that threshold, and the rest come from the process's main heap. Freed in
 * an order other than they came, they left ~16–20 MB of that heap resident
 * through the load and the pre-flight, where a 100,000-task run's peak was.
 * One buffer, grown to the largest file and reused, allocates nothing per
 * file. A larger file than SCRATCH_LIMIT gets a buffer of its own, so the
 * one kept between calls stays small.
 */
const SCRATCH_LIMIT = 1024 * 1024;
let scratch: Buffer | null = null;

/**
 * `use(bytes)` of the file at `path`, its whole content. `bytes` is a view
 * of a buffer that the next read overwrites: `use` must copy what it keeps
 * (a decoded string, a hash) and must not read another file meanwhile.
 * Errors are `readFileSync`'s (ENOENT, EISDIR, …).
 */
export function withFileBytes<T>(path: string, use: (bytes: Buffer) => T): T {
  const fd = openSync(path, 'r');
  let buffer = scratch ?? Buffer.allocUnsafeSlow(64 * 1024);
  scratch = null;
  let length = 0;
  try {
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafeSlow(buffer.length * 2);
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
  } finally {
    closeSync(fd);
  }
  try {
    return use(buffer.subarray(0, length));
  } finally {
    if (buffer.length <= SCRATCH_LIMIT) scratch = buffer;
  }
}

/**
 * The buffer the plain YAML reader (plain-yaml.ts) writes a file's Latin-1
 * bytes into, reused from file to file for the same reason as the one above
 * (a parse is synchronous, one at a time): a new buffer per file came from
 * malloc outside the heap, and ~100 of them for a 100,000-task suite kept
 * ~20 MB of the process's main heap resident. Kept between parses up to 1 MB.
 */
let latin1Scratch: Buffer | null = null;

/** `text` (ASCII) as Latin-1 bytes: a view of the reused buffer, valid until the next call. */
export function latin1Bytes(text: string): Buffer {
  let buffer = latin1Scratch;
  if (buffer === null || buffer.length < text.length) {
    buffer = Buffer.allocUnsafeSlow(Math.max(text.length, 64 * 1024));
    latin1Scratch = buffer.length <= 1024 * 1024 ? buffer : null;
  }
  buffer.write(text, 0, text.length, 'latin1');
  return buffer.subarray(0, text.length);
}
