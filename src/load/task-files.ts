import { relative, sep } from 'node:path';
import type { ConfigIssue, Task } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { projectDistractorSources } from './distractor-sources.ts';
import { discoverDomainNames, importDomain } from './domains.ts';
import { loadSurfaces } from './surfaces.ts';
import { readCheckedTasks } from './task-set.ts';

/**
 * Some task files of one domain, loaded and checked as `loadProject` would
 * check them (the domain, its surfaces, each task, the set's cross-checks),
 * for a re-score that grades again only the trials of the task files that
 * changed (src/run/partial-rescore.ts). `files` are paths relative to
 * `root`, `/`-separated. Null when anything is wrong: the caller then loads
 * the whole project, which reports every issue with its file and line.
 */
export async function loadTaskFiles(
  root: string,
  name: string,
  files: ReadonlySet<string>,
): Promise<{ domain: Domain; tasks: Task[] } | null> {
  const issues: ConfigIssue[] = [];
  const found = await importDomain(root, name, issues);
  if (!found) return null;
  const surfaces = await loadSurfaces(
    found.dir,
    root,
    found.domain,
    issues,
    projectDistractorSources(root, await discoverDomainNames(root)),
  );
  const surfacesFailed = issues.length > 0;
  const only = (path: string) => files.has(relative(root, path).split(sep).join('/'));
  const tasks = await readCheckedTasks(root, name, found.domain, surfaces, surfacesFailed, issues, only);
  return issues.length > 0 ? null : { domain: found.domain, tasks };
}
