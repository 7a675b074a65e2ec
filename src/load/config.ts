import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { ProjectConfig, type ConfigIssue } from '../spec/index.ts';
import { readSourceFile, type SourceFile } from './source-file.ts';
import { zodIssuesToConfigIssues } from './zod-issues.ts';
import { CONFIG_FILE } from './config-file.ts';

export { CONFIG_FILE };

/**
 * Read `toolmark.config.yaml` at the root. Absent → all defaults and
 * `file: null`; invalid → issues (and defaults, so the other checks still run).
 */
export async function loadConfig(
  root: string,
  issues: ConfigIssue[],
): Promise<{ config: ProjectConfig; file: string | null; source: SourceFile | null }> {
  const path = join(root, CONFIG_FILE);
  try {
    await access(path);
  } catch {
    return { config: ProjectConfig.parse({}), file: null, source: null };
  }
  const source = await readSourceFile(path, root, issues);
  if (!source) return { config: ProjectConfig.parse({}), file: path, source: null };
  const value = source.value() ?? {};
  const parsed = ProjectConfig.safeParse(value);
  if (!parsed.success) {
    issues.push(...zodIssuesToConfigIssues(source, ProjectConfig, parsed.error, value));
    return { config: ProjectConfig.parse({}), file: path, source };
  }
  return { config: parsed.data, file: path, source };
}
