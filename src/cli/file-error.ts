/** What a file-system error code means, in the words of the one-line message. */
const MEANINGS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a folder',
  ENOENT: 'a folder on the path does not exist (or was removed meanwhile)',
  EISDIR: 'it is a folder',
  EEXIST: 'it already exists',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EMFILE: 'too many open files',
};

/**
 * A file-system failure that reached the CLI (a read-only results folder,
 * `--out` through a file) is the user's environment, not a toolmark bug:
 * one line with the path and what the code means, exit 2, no stack trace.
 * Returns null for anything else.
 */
export function fileErrorLine(error: unknown): string | null {
  const { code, syscall, path, dest } = (error ?? {}) as NodeJS.ErrnoException & { dest?: string };
  if (typeof code !== 'string' || !(code in MEANINGS) || typeof syscall !== 'string') return null;
  const target = path ?? dest;
  return `cannot ${syscall}${target ? ` ${target}` : ''}: ${MEANINGS[code]} (${code})`;
}
