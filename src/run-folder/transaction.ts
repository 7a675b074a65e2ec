import { existsSync, readFileSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { TEMPORARY_SUFFIX, writeError, writeFileAtomic, writeFileDurable, type RunFileWriter } from './files.ts';

/** The journal of a transaction being installed: present only between "every file staged" and "every file renamed". */
export const PENDING_FILE = 'pending.json';

const STAGED = `.staged${TEMPORARY_SUFFIX}`;

interface Pending {
  v: 1;
  /** What the transaction was (`re-score`, `finish`, `merge`), for the repair note. */
  what: string;
  /** Base names in the run folder: each staged file and the file it replaces. */
  files: { from: string; to: string }[];
}

/**
 * Several files of a run folder replaced together, or not at all — a
 * re-score's trials, summary, manifest and reports; the end of a run or a
 * merge (summary, finished manifest, reports). Each file is written whole
 * to `<name>.staged.tmp` (`write`), then `commit` writes the journal
 * `pending.json` (atomically: that rename is the commit point), renames
 * every staged file into place and removes the journal.
 *
 * A kill before the journal leaves the old files and some `.staged.tmp`
 * ones, which `repairRunFolder` removes (rolled back); a kill after it
 * leaves the journal, which `repairRunFolder` completes (rolled forward).
 * Either way the folder is one consistent version, and the note says which.
 */
export class RunFolderTransaction {
  readonly #runDir: string;
  readonly #what: string;
  readonly #files = new Map<string, string>();

  constructor(runDir: string, what: string) {
    this.#runDir = runDir;
    this.#what = what;
  }

  /** The path `file` (in the run folder) is staged under; the transaction will install it. */
  stage(file: string): string {
    const name = path.basename(file);
    const staged = `${name}${STAGED}`;
    this.#files.set(name, staged);
    return path.join(this.#runDir, staged);
  }

  /** A writer that stages each file (for the report renderers, the summary, the manifest). */
  readonly write: RunFileWriter = (file, content) => writeFileDurable(this.stage(file), content);

  /** Install every staged file: the journal, the renames, the journal removed. */
  commit(): void {
    if (this.#files.size === 0) return;
    const pending: Pending = {
      v: 1,
      what: this.#what,
      files: [...this.#files.entries()].map(([to, from]) => ({ from, to })),
    };
    writeFileAtomic(path.join(this.#runDir, PENDING_FILE), `${JSON.stringify(pending)}\n`);
    install(this.#runDir, pending);
  }

  /** Remove what was staged (an error before the commit). */
  abandon(): void {
    for (const staged of this.#files.values()) rmSync(path.join(this.#runDir, staged), { force: true });
  }
}

function install(runDir: string, pending: Pending): string[] {
  const installed: string[] = [];
  for (const { from, to } of pending.files) {
    const source = path.join(runDir, from);
    // Already renamed by the run that was killed: nothing left to do for this one.
    if (!existsSync(source)) continue;
    try {
      renameSync(source, path.join(runDir, to));
    } catch (error) {
      throw writeError(path.join(runDir, to), error);
    }
    installed.push(to);
  }
  removeJournal(runDir);
  return installed;
}

/**
 * The journal removed once every file is in place (gone already: nothing to
 * do). By `unlinkSync`: `rmSync` checks the path with an `lstat` first and
 * goes through node's rimraf, a few milliseconds at the end of every run.
 */
function removeJournal(runDir: string): void {
  try {
    unlinkSync(path.join(runDir, PENDING_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Finish or undo what an interrupted writer left in `runDir`, and say what:
 * a journal (`pending.json`) is completed; then every temporary file
 * (`*.tmp`: a staged file of a transaction that never committed, a file
 * being written, a stale lock moved aside) is removed. Call it only while
 * holding the folder's lock (`lockRunFolder`), so no live writer's files are
 * touched. Returns one note per repair (none when the folder was clean).
 */
export function repairRunFolder(runDir: string): string[] {
  const notes: string[] = [];
  const journal = path.join(runDir, PENDING_FILE);
  if (existsSync(journal)) {
    let pending: Pending | null = null;
    try {
      pending = JSON.parse(readFileSync(journal, 'utf8')) as Pending;
    } catch {
      pending = null;
    }
    if (pending !== null && Array.isArray(pending.files)) {
      const installed = install(runDir, pending);
      notes.push(
        `${runDir}: completed an interrupted ${pending.what} (installed ${installed.length > 0 ? installed.join(', ') : 'nothing: it was all in place'})`,
      );
    } else rmSync(journal, { force: true });
  }
  let entries: string[];
  try {
    entries = readdirSync(runDir);
  } catch {
    return notes;
  }
  const leftovers = entries.filter((name) => name.endsWith(TEMPORARY_SUFFIX)).sort();
  for (const name of leftovers) rmSync(path.join(runDir, name), { force: true });
  if (leftovers.length > 0) {
    const staged = leftovers.some((name) => name.endsWith(STAGED));
    notes.push(
      `${runDir}: removed ${leftovers.length} temporary file${leftovers.length === 1 ? '' : 's'} of an interrupted write (${leftovers.join(', ')})${staged ? '; the interrupted change was not applied, the files are as they were before it' : ''}`,
    );
  }
  return notes;
}

/** Remove this process's temporary files from `runDir` (a command quitting at once, e.g. on Ctrl-C); the names removed. */
export function removeOwnTemporaryFiles(runDir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(runDir);
  } catch {
    return [];
  }
  const own = entries.filter(
    (name) => name.endsWith(`.${process.pid}${TEMPORARY_SUFFIX}`) || name.endsWith(STAGED) || name === PENDING_FILE,
  );
  // A journal already written means the commit point was passed: finish it rather than lose half of it.
  if (own.includes(PENDING_FILE)) return repairRunFolder(runDir).length > 0 ? own : [];
  for (const name of own) rmSync(path.join(runDir, name), { force: true });
  return own;
}
