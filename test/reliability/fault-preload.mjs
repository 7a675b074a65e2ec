/**
 * Loaded into a real `toolmark` process (NODE_OPTIONS=--import) by
 * run-folder-integrity.test.ts to fail the file system at an exact point,
 * without a real full disk or a timed kill:
 * - TOOLMARK_TEST_ENOSPC_AFTER_LINES=N: the (N+1)-th line appended to a
 *   trials.jsonl is written half, then the write fails with ENOSPC (as a
 *   filling disk does), and so does every later append;
 * - TOOLMARK_TEST_KILL_AT_RENAME=K: the process SIGKILLs itself just before
 *   its K-th rename (every file of a run folder is renamed into place).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const failAfter = process.env.TOOLMARK_TEST_ENOSPC_AFTER_LINES;
const killAt = process.env.TOOLMARK_TEST_KILL_AT_RENAME;

if (failAfter !== undefined) {
  const appendFds = new Set();
  const realOpen = fs.openSync;
  fs.openSync = function (file, flags, ...rest) {
    const fd = realOpen.call(this, file, flags, ...rest);
    if (String(file).endsWith('trials.jsonl') && flags === 'a') appendFds.add(fd);
    return fd;
  };
  const realWrite = fs.writeSync;
  let lines = 0;
  let full = false;
  fs.writeSync = function (fd, data, ...rest) {
    if (!appendFds.has(fd)) return realWrite.call(this, fd, data, ...rest);
    if (full) {
      const error = new Error('ENOSPC: no space left on device, write');
      error.code = 'ENOSPC';
      throw error;
    }
    if (lines >= Number(failAfter)) {
      full = true;
      const text = typeof data === 'string' ? data : data.toString('utf8');
      return realWrite.call(this, fd, text.slice(0, Math.floor(text.length / 2)));
    }
    lines += 1;
    return realWrite.call(this, fd, data, ...rest);
  };
}

if (killAt !== undefined) {
  const realRename = fs.renameSync;
  let renames = 0;
  fs.renameSync = function (...args) {
    renames += 1;
    if (renames === Number(killAt)) process.kill(process.pid, 'SIGKILL');
    return realRename.apply(this, args);
  };
}

syncBuiltinESMExports();
