import { readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

/*
 * The commit `git rev-parse HEAD` would print in `root`, read from the
 * repository's files: starting `git` cost the main thread 25–48 ms of the
 * 10k run's pre-flight (the child's spawn, its pipes and decoder; the
 * process is ~200 MB by then), against well under 1 ms for these reads.
 * It answers only in the plain case it can read exactly as git does; for
 * anything else (GIT_* variables, a repository owned by another user, a
 * repository format with extensions, a symbolic ref chain, a ref in neither
 * a loose file nor packed-refs, a bare repository on the way up) it says
 * `undefined` and the caller asks git itself.
 */

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

// Variables of git that cannot change which repository or HEAD it finds (transport, identity, output).
const HARMLESS_GIT_VARIABLE =
  /^GIT_(?:SSL_|SSH|HTTP_|PROXY_|TRACE|AUTHOR_|COMMITTER_|LFS_|PAGER$|EDITOR$|ASKPASS$|TERMINAL_PROMPT$)/;

/** GIT_DIR, GIT_CEILING_DIRECTORIES, GIT_CONFIG_*…, and SUDO_UID (git's owner check reads it when run as root). */
function changesDiscovery(name: string): boolean {
  return name === 'SUDO_UID' || (name.startsWith('GIT_') && !HARMLESS_GIT_VARIABLE.test(name));
}

/** The commit of HEAD, null when `root` is in no repository, undefined when git must be asked. */
export function readGitHead(root: string): string | null | undefined {
  if (Object.keys(process.env).some(changesDiscovery)) return undefined;
  try {
    const found = findGitDir(path.resolve(root));
    if (found === null || found === undefined) return found;
    return headCommit(found);
  } catch {
    return undefined;
  }
}

/** The git directory `root` belongs to, as git's discovery walks up to it (stopping at a file system's edge). */
function findGitDir(root: string): string | null | undefined {
  const uid = process.getuid?.();
  const device = statSync(root).dev;
  for (let dir = root; ;) {
    const dotGit = statOrNull(path.join(dir, '.git'));
    if (dotGit !== null) {
      // git refuses a repository another user owns (safe.directory): let it say so.
      if (uid === undefined || dotGit.uid !== uid || statSync(dir).uid !== uid) return undefined;
      const gitDir = dotGit.isDirectory() ? path.join(dir, '.git') : gitFileTarget(dir);
      if (gitDir === undefined || statSync(gitDir).uid !== uid) return undefined;
      return gitDir;
    }
    // A bare repository (or a git directory itself) on the way: git would take it.
    if (statOrNull(path.join(dir, 'HEAD')) !== null) return undefined;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    if (statSync(parent).dev !== device) return null;
    dir = parent;
  }
}

/** The directory a `.git` file names (`gitdir: …`, a linked worktree or a submodule). */
function gitFileTarget(dir: string): string | undefined {
  const match = /^gitdir: (.+)\n?$/.exec(readFileSync(path.join(dir, '.git'), 'utf8'));
  return match ? path.resolve(dir, match[1]!) : undefined;
}

function headCommit(gitDir: string): string | undefined {
  const common = commonDir(gitDir);
  // Extensions (reftable, object formats…) and newer formats change how refs are read.
  if (/^\s*\[extensions|repositoryformatversion\s*=\s*[^0\s]/im.test(readFileSync(path.join(common, 'config'), 'utf8')))
    return undefined;
  // Not a git directory as git checks one (git would look further up): let git say.
  if (!statSync(path.join(common, 'objects')).isDirectory() || !statSync(path.join(common, 'refs')).isDirectory())
    return undefined;
  const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
  if (COMMIT.test(head)) return head;
  // A branch (shared by every worktree); per-worktree refs are git's to find.
  const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
  if (ref === undefined || ref.split('/').includes('..')) return undefined;
  return looseRef(common, ref) ?? packedRef(common, ref);
}

/** A linked worktree's shared directory (`commondir`), else the git directory itself. */
function commonDir(gitDir: string): string {
  const named = readOrNull(path.join(gitDir, 'commondir'));
  return named === null ? gitDir : path.resolve(gitDir, named.trim());
}

function looseRef(common: string, ref: string): string | undefined {
  const text = readOrNull(path.join(common, ref))?.trim();
  return text !== undefined && COMMIT.test(text) ? text : undefined;
}

function packedRef(common: string, ref: string): string | undefined {
  const text = readOrNull(path.join(common, 'packed-refs'));
  if (text === null) return undefined;
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1) === ref && COMMIT.test(line.slice(0, space))) return line.slice(0, space);
  }
  return undefined;
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
