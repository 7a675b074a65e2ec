import { createHash } from 'node:crypto';
import { sep } from 'node:path';
import type { Project } from '../load/index.ts';
import {
  configDigest,
  digestFiles,
  domainFileDigests,
  domainInputDigest,
  domainInputFiles,
} from '../load/input-digest.ts';
import type { Manifest } from '../spec/index.ts';
import { codeDigest } from './code-digest.ts';

export { codeDigest } from './code-digest.ts';

/**
 * What a run's grades were computed from (`Manifest.grading_inputs`): the
 * digests of toolmark's own code (src/run/code-digest.ts), the config file and each domain's files
 * (src/load/input-digest.ts). When all are the same today,
 * `toolmark report --rescore` has nothing to re-grade: grading is pure
 * functions of the trial records, the tasks, the actions, the config and
 * this code, so the summary and reports it would write are the ones there.
 */
export type GradingInputs = NonNullable<Manifest['grading_inputs']>;

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
 * changed and grade only their trials (src/run/partial-rescore.ts). The
 * file digests are those made with the domain's digest when it loaded
 * (src/load/input-digest.ts, `domainFileDigests`), so they describe the
 * bytes the tasks graded were read from; nothing when there are none.
 */
function fileInputs(
  root: string,
  domains: Project['domains'],
): Pick<GradingInputs, 'files' | 'task_ids'> | Record<string, never> {
  const files: Record<string, string> = {};
  const taskIds: Record<string, string> = {};
  for (const domain of domains) {
    const loaded = domainFileDigests(root, domain.name, domain.inputDigest!);
    if (loaded === null) return {};
    Object.assign(files, loaded);
    Object.assign(taskIds, taskIdDigests(domain.tasks));
  }
  return { files, task_ids: taskIds };
}

/** Per task file (path from the project root, `/`-separated): the digest of its tasks' ids, sorted. */
export function taskIdDigests(tasks: readonly { id: string; source: { file: string } }[]): Record<string, string> {
  // Grouped by the path as the tasks hold it (one string per file), then by its `/` form: one
  // split and join per file, not per task.
  const byPath = new Map<string, string[]>();
  for (const task of tasks) {
    const ids = byPath.get(task.source.file);
    if (ids === undefined) byPath.set(task.source.file, [task.id]);
    else ids.push(task.id);
  }
  const byFile = new Map<string, string[]>();
  for (const [path, ids] of byPath) {
    const file = path.split(sep).join('/');
    const same = byFile.get(file);
    if (same === undefined) byFile.set(file, ids);
    else same.push(...ids);
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
