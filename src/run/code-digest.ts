import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { packageRoot } from '../load/package-root.ts';

// The package's code as this process runs it: the TypeScript (a checkout,
// through tsx) or the compiled dist/. Run and re-score in different modes
// only differ in digest, which costs a full re-score, never a wrong skip.
const COMPILED = !import.meta.url.endsWith('.ts');
const CODE_FOLDERS = COMPILED ? ['dist/src', 'dist/providers'] : ['src', 'providers'];

// Code files only: declarations and source maps do not grade anything.
const CODE_FILE = /(?<!\.d)\.[jt]s$/;

let code: string | null | undefined;

/**
 * Digest of toolmark's code, made once a process: its package.json, the
 * installed version of each dependency, and each code file's path, size and
 * modification time, as make compares them (reading ~300 files
 * cost ~0.1 s of a re-score that has nothing to do). An edit changes them;
 * a file restored to its old bytes changes them too, which only costs a
 * full re-score. Null when the code cannot be listed (no digest, no skip).
 */
export function codeDigest(): string | null {
  if (code !== undefined) return code;
  try {
    code = digestCode(packageRoot());
  } catch {
    code = null;
  }
  return code;
}

/**
 * The code files of the package, sorted folder by folder. Each path is
 * joined by hand: readdir's `parentPath` is already normalised (the folder
 * as given, joined with each subfolder), and a `path.join` plus a
 * `path.relative` per file were ~15 of the ~35 ms of CPU this digest took
 * in a new process (~430 files in dist/).
 */
function codeFiles(root: string): string[] {
  return CODE_FOLDERS.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && CODE_FILE.test(entry.name))
      .map((entry) => `${entry.parentPath}${sep}${entry.name}`)
      .sort(),
  );
}

/** The installed version of a dependency: under toolmark's own node_modules, else beside toolmark (hoisted). */
function dependencyVersion(root: string, name: string): string {
  for (const folder of [join(root, 'node_modules', name), join(root, '..', name)]) {
    try {
      return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      // not installed here
    }
  }
  return 'not found';
}

function digestCode(root: string): string {
  const manifest = readFileSync(join(root, 'package.json'));
  const hash = createHash('sha256').update(manifest);
  // Dependencies parse and check what grading reads (js-yaml, zod, re2js…): their versions count too.
  const dependencies = Object.keys(
    (JSON.parse(manifest.toString('utf8')) as { dependencies?: object }).dependencies ?? {},
  );
  for (const name of dependencies.sort()) hash.update(`${name}@${dependencyVersion(root, name)}\n`);
  // Each file by its path from the root (`root` is normalised: its files start with it and a separator).
  const inside = join(root, 'x').length - 1;
  for (const file of codeFiles(root)) {
    const { size, mtimeMs } = statSync(file);
    const name = sep === '/' ? file.slice(inside) : file.slice(inside).split(sep).join('/');
    hash.update(`${name}\0${size}\0${mtimeMs}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}
