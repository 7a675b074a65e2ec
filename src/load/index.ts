import { resolve } from 'node:path';
import {
  ConfigError,
  formatConfigIssue,
  type ConfigIssue,
  type ProjectConfig,
  type ResolvedSurface,
  type Task,
} from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { loadConfig } from './config.ts';
import { configDigest, domainInputDigest } from './input-digest.ts';
import { chooseDomains, discoverDomainNames, findOrphanFolders, importDomain, type FoundDomain } from './domains.ts';
import { endWatchdog } from './user-code-guard.ts';
import { loadSurfaces } from './surfaces.ts';
import { projectDistractorSources } from './distractor-sources.ts';
import { readCheckedTasks } from './task-set.ts';

/** A project on disk, fully validated (SPEC §3). */
export interface Project {
  root: string;
  config: ProjectConfig;
  /** Absolute path of `toolmark.config.yaml`, or null when the project has none. */
  configFile: string | null;
  /** Digest of the config file's bytes as loaded (`none` without one; null when it changed while loading). */
  configDigest?: string | null;
  domains: LoadedDomain[];
}

/** One domain with its resolved surfaces and its tasks of both splits (`task.split` says which). */
export interface LoadedDomain {
  name: string;
  dir: string;
  domain: Domain;
  surfaces: ResolvedSurface[];
  tasks: Task[];
  /**
   * Digest of the domain's files as loaded (src/load/input-digest.ts): null
   * when its grading can depend on files elsewhere, or a file changed while
   * it loaded. A run records it so a re-score can see nothing changed.
   */
  inputDigest?: string | null;
}

export interface LoadOptions {
  /** Load only these domains (names of `suites/<name>/`). */
  domains?: string[];
}

/**
 * Load and validate a project: config, domains, surfaces (with `extends`
 * merged and hashed) and tasks of both splits. Every problem in every file
 * is collected; if there is any, one ConfigError lists them all (sorted by
 * file and line) and nothing is returned.
 */
export async function loadProject(root: string, options: LoadOptions = {}): Promise<Project> {
  const absoluteRoot = resolve(root);
  const issues: ConfigIssue[] = [];
  const { config, file: configFile, source: configSource } = await loadConfig(absoluteRoot, issues);
  const configInputs = configDigest(absoluteRoot);
  const discovered = await discoverDomainNames(absoluteRoot);
  const names = chooseDomains(discovered, config.domains, options.domains, configSource, issues);
  // Asked for specific domains: folders of other domains are none of our business.
  if (!options.domains) issues.push(...(await findOrphanFolders(absoluteRoot, discovered)));
  if (discovered.length === 0)
    issues.push({ file: absoluteRoot, message: 'no domains found', expected: 'at least one suites/<name>/domain.ts' });

  // The domain modules first, one after another (user code runs there, under src/load/user-code-guard.ts's
  // watchdog, ended once they are in), then each domain's surfaces and tasks.
  const imported: { name: string; digestBefore: string | null; found: FoundDomain | null }[] = [];
  for (const name of names) {
    // Digested before and after loading: equal, the loader read these bytes.
    const digestBefore = domainInputDigest(absoluteRoot, name);
    imported.push({ name, digestBefore, found: await importDomain(absoluteRoot, name, issues) });
  }
  endWatchdog();

  const domains: LoadedDomain[] = [];
  const sources = projectDistractorSources(absoluteRoot, discovered);
  for (const { name, digestBefore, found } of imported) {
    if (!found) continue;
    const before = issues.length;
    const surfaces = await loadSurfaces(found.dir, absoluteRoot, found.domain, issues, sources);
    const surfacesFailed = issues.length > before;
    const tasks = await readCheckedTasks(absoluteRoot, name, found.domain, surfaces, surfacesFailed, issues);
    const digestAfter = domainInputDigest(absoluteRoot, name);
    domains.push({
      name,
      dir: found.dir,
      domain: found.domain,
      surfaces,
      tasks,
      inputDigest: digestBefore === digestAfter ? digestAfter : null,
    });
  }
  // A `domain:<name>` distractor imports that domain again, under a new watchdog: ended here, not
  // after its idle wait.
  endWatchdog();

  if (issues.length > 0) throw new ConfigError(sortIssues(dedupe(issues)));
  return { root: absoluteRoot, config, configFile, configDigest: configInputs, domains };
}

/** An issue reached twice (a parent surface's entry seen again through a revision) is shown once. */
function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const text = formatConfigIssue(issue);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        a.issue.file.localeCompare(b.issue.file) ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
}

export { finishSurface, resolveMergedSurface, surfaceHash } from './surfaces.ts';
export { perturbSurface, readDistractorSources } from './perturb-surface.ts';
export { projectDistractorSources } from './distractor-sources.ts';
export type { DistractorSources } from './distractors.ts';
export { MAX_FILE_BYTES } from './source-file.ts';
