import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../spec/index.ts';

/** The lock file of a run folder: present while one command owns the folder. */
export const LOCK_FILE = 'run.lock';

/** What the lock file holds (JSON): who owns the folder, since when. */
export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** The command that took it (`run`, `run --resume`, `merge`, `report --rescore`, `report`). */
  command: string;
}

/** A lock taken: release it when the command ends; `notes` say what was found (a stale lock taken over). */
export interface RunLock {
  readonly owner: LockOwner;
  readonly notes: string[];
  release(): void;
}

/**
 * Make `runDir` this process's for the duration of `command`: an exclusive
 * create (O_EXCL) of `run.lock` holding pid, host and start time. Run,
 * resume, merge, re-score and report each take it, so two of them never
 * write one folder (two runs with one `--run-id`, two resumes of one run).
 *
 * A lock whose owner is gone — the same host, and no process with its pid —
 * is stale (a crash, a SIGKILL, a second Ctrl-C): it is taken over, and the
 * note says so. A lock of a live process is refused, and so is one from
 * another host (its pid cannot be checked from here): the message names the
 * owner and how to clear the lock by hand if that owner is really gone.
 */
export function lockRunFolder(runDir: string, command: string): RunLock {
  const file = path.join(runDir, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), command };
  const notes: string[] = [];
  if (!tryCreate(file, owner)) {
    const held = readOwner(file);
    if (held !== null && !isStale(held)) throw lockedError(file, held);
    // Stale (or unreadable: a crash between create and write). Move it aside
    // under our own name: of two processes taking over at once, one rename fails.
    const aside = `${file}.${process.pid}.stale.tmp`;
    try {
      renameSync(file, aside);
    } catch {
      throw lockedError(file, readOwner(file));
    }
    const moved = readOwner(aside);
    if (moved !== null && held !== null && (moved.pid !== held.pid || moved.started_at !== held.started_at)) {
      // Someone took it over between our read and our rename: give theirs back.
      try {
        linkSync(aside, file);
      } catch {
        /* a third process holds it now; refused below either way */
      }
      rmSync(aside, { force: true });
      throw lockedError(file, moved);
    }
    rmSync(aside, { force: true });
    if (!tryCreate(file, owner)) throw lockedError(file, readOwner(file));
    notes.push(
      held === null
        ? `${file}: took over an unreadable lock (a process died while taking it)`
        : `${file}: took over a stale lock of \`toolmark ${held.command}\` (pid ${held.pid}, started ${held.started_at}), which is no longer running`,
    );
  }
  let released = false;
  return {
    owner,
    notes,
    release() {
      if (released) return;
      released = true;
      releaseIfOwned(file, owner.pid);
    },
  };
}

/** Remove `runDir`'s lock if process `pid` holds it (a process that must quit at once, before its `release`). */
export function releaseRunFolderLock(runDir: string, pid = process.pid): void {
  releaseIfOwned(path.join(runDir, LOCK_FILE), pid);
}

/** The owner of a live lock on `runDir`, or null when it is free or stale. For readers that must not touch a folder in use. */
export function liveLockOwner(runDir: string): LockOwner | null {
  const held = readOwner(path.join(runDir, LOCK_FILE));
  return held !== null && !isStale(held) ? held : null;
}

function releaseIfOwned(file: string, pid: number): void {
  const held = readOwner(file);
  if (held !== null && held.pid === pid && held.host === hostname()) rmSync(file, { force: true });
}

/** O_EXCL create with the owner inside; false when the file already exists. */
function tryCreate(file: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(file: string): LockOwner | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
    return typeof value?.pid === 'number' && typeof value.host === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Stale: taken on this host by a process that no longer exists. A lock from another host is never stale here. */
function isStale(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's); only ESRCH means it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function lockedError(file: string, owner: LockOwner | null): ConfigError {
  const who = owner
    ? `\`toolmark ${owner.command}\` (pid ${owner.pid} on ${owner.host}, since ${owner.started_at})`
    : 'another toolmark process';
  return new ConfigError({
    file,
    message: `the run folder is in use by ${who}`,
    expected: `one command at a time on a run folder: wait for it to end; if that process is gone (another host, a reused pid), delete ${file}`,
  });
}
