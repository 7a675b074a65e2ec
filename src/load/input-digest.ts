import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { withFileBytes } from './file-bytes.ts';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { load as parseYaml } from 'js-yaml';
import { parsePlain } from './plain-yaml.ts';
import { CONFIG_FILE } from './config-file.ts';

/**
 * A digest of every file a domain's grading depends on, read as bytes (no
 * parse), so `toolmark report --rescore` can tell in milliseconds that a
 * run's tasks and actions are exactly as they were when it was graded.
 *
 * The files are all of `suites/<domain>/` and `heldout/<domain>/` but their
 * `cassettes/` folders: task files, `domain.yaml`, its tools file, surfaces
 * (which do not affect grades; an edit there only costs a full re-score).
 * A domain whose definition can reach outside those folders has no digest
 * (null), and is always re-graded: a TypeScript or JavaScript domain (its
 * imports are code anywhere), an MCP domain (its server), a tools file
 * outside the folder.
 */

const CODE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_FOLDERS = new Set(['cassettes', 'node_modules']);

/** Files below `dir` (relative to `root`, `/`-separated, sorted), or null when one of them is code. */
function dataFiles(dir: string, root: string): string[] | null {
  const files: string[] = [];
  const walk = (folder: string): boolean => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return true; // no held-out folder: nothing to digest
    }
    for (const entry of entries) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !walk(full)) return false;
      } else if (CODE.test(entry.name)) return false;
      else files.push(relative(root, full).split(sep).join('/'));
    }
    return true;
  };
  return walk(dir) ? files.sort() : null;
}

/** True when the domain.yaml in `dir` is an MCP domain or names a tools file outside `dir`. */
function reachesOutside(dir: string): boolean {
  let file: { kind?: unknown; tools_file?: unknown } | null;
  try {
    const text = readFileSync(join(dir, 'domain.yaml'), 'utf8');
    // The plain reader first, as the loader reads it (src/load/fast-yaml.ts: the same value as
    // js-yaml's where it answers), so a generated domain costs no cold js-yaml parse here.
    file = (parsePlain(text)?.value ?? parseYaml(text)) as typeof file;
  } catch {
    return true; // unreadable or missing: let the full re-score say what is wrong
  }
  if (file === null || typeof file !== 'object') return true;
  if (file.kind !== undefined && file.kind !== 'declarative') return true;
  const tools = file.tools_file;
  const path = typeof tools === 'string' ? tools : (tools as { path?: unknown } | undefined)?.path;
  if (path === undefined) return false;
  if (typeof path !== 'string') return true;
  // Relative to the domain folder (src/load/yaml-domain.ts), and it must stay inside it.
  const inside = relative(dir, resolve(dir, path));
  return inside.startsWith('..') || isAbsolute(inside);
}

/**
 * Each named file's record of a digest to `take`: its path and length, then
 * its bytes. One place for it: a domain's digest and the digest of each of
 * its files are compared with ones made by `digestFiles` (src/run/grading-inputs.ts).
 * False when a file cannot be read.
 */
function eachFileRecord(
  root: string,
  files: readonly string[],
  take: (file: string, head: string, bytes: Uint8Array) => void,
): boolean {
  try {
    for (const file of files)
      withFileBytes(join(root, file), (bytes) => take(file, `${file}\0${bytes.length}\0`, bytes));
  } catch {
    return false;
  }
  return true;
}

/** `sha256:<hex>` of the named files' paths and bytes, or null when one cannot be read. */
export function digestFiles(root: string, files: readonly string[]): string | null {
  const hash = createHash('sha256');
  if (!eachFileRecord(root, files, (_file, head, bytes) => hash.update(head).update(bytes))) return null;
  return `sha256:${hash.digest('hex')}`;
}

/** The files domain `name`'s digest covers (relative to `root`, `/`-separated), or null when its grading may depend on files elsewhere. */
export function domainInputFiles(root: string, name: string): string[] | null {
  const train = join(root, 'suites', name);
  if (reachesOutside(train)) return null;
  const trainFiles = dataFiles(train, root);
  const heldoutFiles = dataFiles(join(root, 'heldout', name), root);
  if (trainFiles === null || heldoutFiles === null) return null;
  return [...trainFiles, ...heldoutFiles];
}

/** A domain's digest with the digest of each of its files (`digestFiles` of that file alone). */
interface DomainDigests {
  digest: string;
  files: Record<string, string>;
}

// The last digests made of each domain (by root and name). A run records every file's digest
// (src/run/grading-inputs.ts) of the bytes its load digested: made in the same pass, they need
// no second and third read of the task files in the pre-flight (2 MB at 10,000 tasks: ~10 ms
// of the main thread, against ~1.5 ms of hashing the bytes once more here).
const lastDigests = new Map<string, DomainDigests>();

/** The digest of domain `name`'s files under `root`, or null when its grading may depend on files elsewhere. */
export function domainInputDigest(root: string, name: string): string | null {
  const names = domainInputFiles(root, name);
  if (names === null) return null;
  const whole = createHash('sha256');
  const files: Record<string, string> = {};
  const read = eachFileRecord(root, names, (file, head, bytes) => {
    whole.update(head).update(bytes);
    files[file] = `sha256:${createHash('sha256').update(head).update(bytes).digest('hex')}`;
  });
  if (!read) return null;
  const digest = `sha256:${whole.digest('hex')}`;
  lastDigests.set(`${root}\0${name}`, { digest, files });
  return digest;
}

/**
 * The digest of each file of domain `name`, as made with its last digest, when
 * that digest was `digest` (the loaded domain's); else null.
 */
export function domainFileDigests(root: string, name: string, digest: string): Record<string, string> | null {
  const last = lastDigests.get(`${root}\0${name}`);
  return last?.digest === digest ? last.files : null;
}

/** The digest of the project's config file (`none` when it has none; null when it cannot be read). */
export function configDigest(root: string): string | null {
  return existsSync(join(root, CONFIG_FILE)) ? digestFiles(root, [CONFIG_FILE]) : 'none';
}
