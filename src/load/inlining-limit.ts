import { setFlagsFromString } from 'node:v8';

/**
 * Task files read while V8's optimizing compiler inlines only small
 * functions (issue 20).
 *
 * Why: loading runs the loader's code (the plain YAML reader, `plainTask`,
 * the task checks) for a fraction of a second, starting cold. TurboFan
 * compiles each hot function with the functions it calls inlined, up to 460
 * bytes of bytecode each by default; the reader's methods call one another,
 * so each is compiled again inside the others, and until those large
 * compiles finish (on a second core shared with the cassette worker and the
 * token counter) the loader runs in the interpreter. With only callees of at
 * most 60 bytes inlined, each compile is small and done soon. Measured in
 * fresh processes, interleaved, reading the 10,000 generated tasks of the
 * bench's workload (10 files): CPU 361 → 246 ms (medians of 6 pairs); of
 * 100,000 tasks 1.24–1.41 → 1.15–1.25 s, so the code compiled this way is
 * no slower to run here. The 10,000-task run's load phase: CPU 853 → 693 ms.
 *
 * The limit is V8's `--max-inlined-bytecode-size`, one value for the whole
 * process (worker threads included), read whenever TurboFan weighs an
 * inlining. It is set while any task files are being read and V8's default
 * is restored after the last; a process started with its own value (on the
 * command line or in NODE_OPTIONS) keeps it.
 */
const LOADING_LIMIT = 60;
/** V8's default (`node --v8-options`), restored after loading. */
const V8_DEFAULT = 460;
const FLAG = '--max-inlined-bytecode-size';
/** The flag as V8 reads it, `-` or `_` between its words, followed by its value. */
const USER_FLAG = /--max[-_]inlined[-_]bytecode[-_]size(?:[= ]|$)/;

/** Did the process's user choose the limit (on the command line or in NODE_OPTIONS)? */
export function userChoseInliningLimit(execArgv: readonly string[], nodeOptions = ''): boolean {
  return execArgv.some((argument) => USER_FLAG.test(argument)) || USER_FLAG.test(nodeOptions);
}

/** How many `withSmallInlining` calls are under way (a load may run while another does). */
let active = 0;

/** `read()`, with the small inlining limit set until it settles (unless the user chose one). */
export async function withSmallInlining<T>(read: () => Promise<T>): Promise<T> {
  if (userChoseInliningLimit(process.execArgv, process.env.NODE_OPTIONS)) return read();
  if (active++ === 0) setFlagsFromString(`${FLAG}=${LOADING_LIMIT}`);
  try {
    return await read();
  } finally {
    if (--active === 0) setFlagsFromString(`${FLAG}=${V8_DEFAULT}`);
  }
}
