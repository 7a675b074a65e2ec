import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Project } from '../load/index.ts';
import { configDigest, digestFiles, domainInputDigest, domainInputFiles } from '../load/input-digest.ts';
import { packageRoot } from '../load/package-root.ts';
import type { Manifest } from '../spec/index.ts';

/**
 * What a run's grades were computed from (`Manifest.grading_inputs`): the
 * digests of toolmark's own code, the config file and each domain's files
 * (src/load/input-digest.ts). When all are the same today,
 * `toolmark report --rescore` has nothing to re-grade: grading is pure
 * functions of the trial records, the tasks, the actions, the config and
 * this code, so the summary and reports it would write are the ones there.
 */
export type GradingInputs = NonNullable<Manifest['grading_inputs']>;

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
function codeDigest(): string | null {
  if (code !== undefined) return code;
  try {
    code = digestCode(packageRoot());
  } catch {
    code = null;
  }
  return code;
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
  for (const folder of CODE_FOLDERS) {
    const files = readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && CODE_FILE.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name))
      .sort();
    for (const file of files) {
      const { size, mtimeMs } = statSync(file);
      hash.update(`${relative(root, file).split(sep).join('/')}\0${size}\0${mtimeMs}\n`);
    }
  }
  return `sha256:${hash.digest('hex')}`;
}

/** The inputs of a run of `domains` of a loaded project; undefined when one of them has no digest. */
export function gradingInputsOf(project: Project, domains: readonly string[]): GradingInputs | undefined {
  const code = codeDigest();
  if (typeof project.configDigest !== 'string' || code === null) return undefined;
  const digests: Record<string, string> = {};
  const loaded: Project['domains'] = [];
  for (const name of [...new Set(domains)].sort()) {
    const domain = project.domains.find((candidate) => candidate.name === name);
    if (typeof domain?.inputDigest !== 'string') return undefined;
    digests[name] = domain.inputDigest;
    loaded.push(domain);
  }
  return { code, config: project.configDigest, domains: digests, ...fileInputs(project.root, loaded) };
}

/**
 * Per file of the domains: the digest of its bytes, and for a task file the
 * digest of its task ids, so that a re-score can tell which task files
 * changed and grade only their trials (src/run/partial-rescore.ts). Nothing
 * when a file changed since the domain loaded (its digest is no longer the
 * loaded one): the digests would not describe the tasks graded.
 */
function fileInputs(
  root: string,
  domains: Project['domains'],
): Pick<GradingInputs, 'files' | 'task_ids'> | Record<string, never> {
  const files: Record<string, string> = {};
  const taskIds: Record<string, string> = {};
  for (const domain of domains) {
    const names = domainInputFiles(root, domain.name);
    if (names === null) return {};
    for (const name of names) {
      const digest = digestFiles(root, [name]);
      if (digest === null) return {};
      files[name] = digest;
    }
    Object.assign(taskIds, taskIdDigests(domain.tasks));
    if (domainInputDigest(root, domain.name) !== domain.inputDigest) return {};
  }
  return { files, task_ids: taskIds };
}

/** Per task file (path from the project root, `/`-separated): the digest of its tasks' ids, sorted. */
export function taskIdDigests(tasks: readonly { id: string; source: { file: string } }[]): Record<string, string> {
  const byFile = new Map<string, string[]>();
  for (const task of tasks) {
    const file = task.source.file.split(sep).join('/');
    const ids = byFile.get(file) ?? [];
    ids.push(task.id);
    byFile.set(file, ids);
  }
  const digests: Record<string, string> = {};
  for (const [file, ids] of [...byFile.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    digests[file] = `sha256:${createHash('sha256').update(ids.sort().join('\n')).digest('hex')}`;
  }
  return digests;
}

/**
 * The task files that changed since a run recorded its inputs, by domain, when
 * only task files changed and nothing else did (toolmark's code, the config,
 * the list of files, any other file of a domain); else null (grade everything).
 * Read as bytes, nothing parsed. The file digests found are returned with them.
 */
export function changedTaskFiles(
  recorded: GradingInputs,
  root: string,
): { changed: Map<string, Set<string>>; files: Record<string, string> } | null {
  const { files: recordedFiles, task_ids: recordedIds } = recorded;
  if (recordedFiles === undefined || recordedIds === undefined) return null;
  if (recorded.code !== codeDigest() || recorded.config !== configDigest(root)) return null;
  const changed = new Map<string, Set<string>>();
  const files: Record<string, string> = {};
  for (const name of Object.keys(recorded.domains)) {
    const names = domainInputFiles(root, name);
    if (names === null) return null;
    const inDomain = new Set<string>();
    for (const file of names) {
      const digest = digestFiles(root, [file]);
      if (digest === null || recordedFiles[file] === undefined) return null; // unreadable, or a new file
      files[file] = digest;
      if (digest === recordedFiles[file]) continue;
      if (recordedIds[file] === undefined) return null; // not a task file: the domain, its tools or surfaces
      inDomain.add(file);
    }
    if (inDomain.size > 0) changed.set(name, inDomain);
  }
  // A file gone (or one of another domain): the recorded list is not today's.
  if (Object.keys(files).length !== Object.keys(recordedFiles).length) return null;
  return { changed, files };
}

/** True when the inputs a run recorded are those of the project at `root` today, read as bytes, nothing parsed. */
export function gradingInputsUnchanged(recorded: GradingInputs, root: string): boolean {
  if (recorded.code !== codeDigest() || recorded.config !== configDigest(root)) return false;
  return Object.entries(recorded.domains).every(([name, digest]) => domainInputDigest(root, name) === digest);
}

/**
 * A resumed run's manifest: its trials so far were graded against the inputs
 * it recorded, the rest will be against today's; it keeps them only when
 * they are the same.
 */
export function withGradingInputs(manifest: Manifest, today: GradingInputs | undefined): Manifest {
  const { grading_inputs: recorded, ...rest } = manifest;
  return recorded !== undefined && today !== undefined && sameInputs(recorded, today) ? manifest : rest;
}

function sameInputs(a: GradingInputs, b: GradingInputs): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
