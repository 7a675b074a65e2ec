import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../spec/index.ts';

/** The files of a run folder (`results/<run-id>/`, SPEC §3). */
export const RUN_FILES = { manifest: 'manifest.json', trials: 'trials.jsonl', summary: 'summary.json' } as const;

/** The reports of a run folder (rendered by src/report, named here with the other files of the folder). */
export const REPORT_FILES = { markdown: 'report.md', html: 'report.html', junit: 'junit.xml' } as const;

/** Path of one of the run files inside a run folder. */
export function runFile(runDir: string, name: keyof typeof RUN_FILES): string {
  return path.join(runDir, RUN_FILES[name]);
}

/** `2026-11-29T22-40-00Z-ab12`: sortable, safe in file names, unique enough for parallel CI jobs. */
export function createRunId(
  now: Date = new Date(),
  random: () => string = () => randomBytes(2).toString('hex'),
): string {
  return `${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}-${random()}`;
}

/** A run id names one folder under the results folder; `../x` or `a/b` would write somewhere else. Returns the id. */
export function checkRunId(id: string, flag = '--run-id'): string {
  if (/^[A-Za-z0-9._-]+$/.test(id) && !/^\.+$/.test(id)) return id;
  throw new ConfigError({
    file: flag,
    field: id,
    message: 'not a run id',
    expected: 'one folder name: letters, digits, dot, dash or underscore',
  });
}

/** One chunk of a file written in chunks: text, or text already encoded as UTF-8. */
export type FileChunk = string | Uint8Array;

/**
 * What a writer of the run folder writes: one string, or a sequence of
 * chunks (a large page), written in order.
 */
export type FileContent = string | Iterable<FileChunk>;

/** Writes one file of the run folder whole (the default is `writeFileAtomic`; a transaction stages instead). */
export type RunFileWriter = (file: string, content: FileContent) => void;

/**
 * Every temporary file of the run folder ends in `.tmp`: `<name>.<pid>.tmp`
 * while one file is written (`writeFileAtomic`), `<name>.staged.tmp` while a
 * transaction is prepared (transaction.ts). `repairRunFolder` removes any
 * that a killed process left.
 */
export const TEMPORARY_SUFFIX = '.tmp';

/** The temporary name a file is written under by this process before it is renamed into place. */
export function temporaryName(file: string): string {
  return `${file}.${process.pid}${TEMPORARY_SUFFIX}`;
}

/** The bytes of a chunked file gathered before each write. */
const WRITE_BATCH = 1 << 20;

/** Byte chunks up to this size are gathered into the batch; larger ones are written on their own. */
const SMALL_BYTES = 64 << 10;

/**
 * Write `content` to `file` and flush it to disk (fsync), replacing what was
 * there. Not atomic by itself: `writeFileAtomic` and transactions write
 * under a temporary name with it, then rename. A failed write (a full disk)
 * removes the partial file and throws `RunFolderWriteError`.
 */
export function writeFileDurable(file: string, content: FileContent): void {
  let fd: number;
  try {
    fd = openSync(file, 'w');
  } catch (error) {
    throw writeError(file, error);
  }
  try {
    if (typeof content === 'string') writeAll(fd, content);
    else writeChunks(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(file, { force: true });
    throw writeError(file, error);
  }
  closeSync(fd);
}

/**
 * Write chunks in order: each text chunk encoded as UTF-8 straight into one
 * buffer of `WRITE_BATCH` bytes, and each small byte chunk copied into it,
 * written when the next would not fit (a chunk is whole text: never half of
 * a surrogate pair); large bytes, and text too long for the buffer, on their
 * own (a write each for report.html's ~2,000 embedded trials was ~2,000
 * system calls). The chunks were gathered as strings,
 * joined and encoded into a new buffer per batch: junit.xml of a
 * 10,000-task run is ~10,000 chunks (~3 MB), each held until its batch was
 * joined, so a scavenge copied them, then the join copied them again.
 * Joined with a large chunk, the small ones before it were copied once
 * more, and widened to two bytes a character when one of them is not
 * Latin-1 (report.html's ⚠ banner before its ~4 MB of embedded trials:
 * ~35 ms of a 10,000-trial run's reports): large bytes are never joined.
 */
function writeChunks(fd: number, chunks: Iterable<FileChunk>): void {
  const batch = Buffer.allocUnsafe(WRITE_BATCH);
  let used = 0;
  for (const chunk of chunks) {
    const text = typeof chunk === 'string';
    // The most it takes of the batch (a UTF-16 code unit is at most 3 bytes of UTF-8, a surrogate
    // pair 4 for two), or Infinity for large bytes. Small bytes are copied into the batch too:
    // report.html's embedded trials are ~2,000 of ~2.3 KB.
    const most = text ? chunk.length * 3 : chunk.length <= SMALL_BYTES ? chunk.length : Infinity;
    if (used > 0 && most > batch.length - used) {
      writeBytes(fd, batch.subarray(0, used));
      used = 0;
    }
    if (most > batch.length) {
      if (text) writeAll(fd, chunk);
      else writeBytes(fd, chunk);
    } else if (text) used += batch.write(chunk, used, 'utf8');
    else {
      batch.set(chunk, used);
      used += chunk.length;
    }
  }
  if (used > 0) writeBytes(fd, batch.subarray(0, used));
}

/** Write a whole string to an open file, finishing short writes. */
export function writeAll(fd: number, text: string): void {
  writeBytes(fd, Buffer.from(text, 'utf8'));
}

/** Write all of `bytes` to an open file, finishing short writes. */
function writeBytes(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/**
 * Write a file whole or not at all: to `temporaryName(file)`, flushed, then
 * renamed over `file`. A crash or a kill leaves the old file or the new one,
 * never half of one (plus, at worst, a temporary file the next open removes).
 * Every file of the run folder but the appended `trials.jsonl` goes through here.
 */
export const writeFileAtomic: RunFileWriter = (file, content) => {
  const temporary = temporaryName(file);
  writeFileDurable(temporary, content);
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw writeError(file, error);
  }
};

/** Error codes of a write that the user fixes on their side (space, permissions), not a bug: exit 2, one line. */
const USER_FIXABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EFBIG', 'ENOTDIR', 'ENOENT']);

/** A file of the run folder could not be written (full disk, read-only or removed folder). A ConfigError: exit 2, one line. */
export class RunFolderWriteError extends ConfigError {
  readonly code: string;
  constructor(file: string, code: string, detail: string) {
    super({ file, message: `cannot write: ${code} (${detail})` });
    this.name = 'RunFolderWriteError';
    this.code = code;
  }
}

/** `error` as a RunFolderWriteError when the user can fix its cause; other errors unchanged. */
export function writeError(file: string, error: unknown): unknown {
  if (error instanceof RunFolderWriteError) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === undefined || !USER_FIXABLE.has(code)) return error;
  const detail =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'no space left on the device'
      : code === 'EROFS'
        ? 'read-only file system'
        : code === 'ENOENT' || code === 'ENOTDIR'
          ? 'the folder is gone'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : 'the device failed';
  return new RunFolderWriteError(file, code, detail);
}

/**
 * A finished run folder holds all three run files; anything else is a
 * ConfigError naming the folder (reports need every one of them).
 */
export function assertRunFolder(runDir: string): void {
  const isDirectory = (() => {
    try {
      return statSync(runDir).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!isDirectory) {
    throw new ConfigError({
      file: runDir,
      message: 'not a run folder',
      expected: 'a directory such as results/<run-id>/ holding manifest.json, trials.jsonl and summary.json',
    });
  }
  const missing = Object.values(RUN_FILES).filter((name) => {
    try {
      return !statSync(path.join(runDir, name)).isFile();
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new ConfigError({
      file: runDir,
      message: `run folder is missing ${missing.join(', ')}`,
      expected: 'manifest.json, trials.jsonl and summary.json (summary.json is written when a run finishes)',
    });
  }
}
