import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { Summary } from '../spec/index.ts';
import { REPORT_FILES, runFile } from './files.ts';
import { liveLockOwner, lockRunFolder, type RunLock } from './lock.ts';
import { repairRunFolder } from './transaction.ts';

/**
 * How a command that writes a run folder opens it: take the lock
 * (`lockRunFolder`), then finish or undo what an interrupted writer left
 * (`repairRunFolder`). The lock's `notes` say what was taken over or repaired.
 */
export function openRunFolder(runDir: string, command: string): RunLock {
  const lock = lockRunFolder(runDir, command);
  try {
    lock.notes.push(...repairRunFolder(runDir));
  } catch (error) {
    lock.release();
    throw error;
  }
  return lock;
}

/**
 * How a command that only reads a run folder (`compare`, `gate`) opens it:
 * the same repair, when no live process holds the folder (a run in
 * progress is read as it is, and its files are not touched). Returns the notes.
 */
export function repairIdleRunFolder(runDir: string, command: string): string[] {
  if (liveLockOwner(runDir) !== null) return [];
  let lock: RunLock;
  try {
    lock = openRunFolder(runDir, command);
  } catch {
    return []; // taken meanwhile, or a read-only folder: read it as it is
  }
  lock.release();
  return lock.notes;
}

/** One finished-run file that is not whole. */
export interface RunFileProblem {
  file: string;
  problem: 'missing' | 'torn';
}

/** The last bytes each report ends with when it is whole (the renderers write them last). */
const REPORT_ENDINGS: Record<string, RegExp> = {
  [REPORT_FILES.markdown]: /\n$/,
  [REPORT_FILES.html]: /<\/html>\s*$/,
  [REPORT_FILES.junit]: /<\/testsuites>\s*$/,
};

/**
 * The summary and the reports of a run folder that are missing or torn (a
 * report cut mid-tag, a summary that is not a whole JSON document). A
 * folder written by this version never has them (every file is renamed
 * into place whole), but one written by an older version, copied halfway
 * or damaged by hand may; `report` and `gate` say so.
 */
export function checkRunFiles(runDir: string): RunFileProblem[] {
  const problems: RunFileProblem[] = [];
  const summary = runFile(runDir, 'summary');
  const summaryText = readOptional(summary);
  if (summaryText === null) problems.push({ file: summary, problem: 'missing' });
  else if (!Summary.safeParse(parseJson(summaryText)).success) problems.push({ file: summary, problem: 'torn' });
  for (const [name, ending] of Object.entries(REPORT_ENDINGS)) {
    const file = path.join(runDir, name);
    const tail = readTail(file, 64);
    if (tail === null) problems.push({ file, problem: 'missing' });
    else if (!ending.test(tail)) problems.push({ file, problem: 'torn' });
  }
  return problems;
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The last `bytes` bytes of a file as text (a report may be megabytes); null when it cannot be read. */
function readTail(file: string, bytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(bytes, size));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
