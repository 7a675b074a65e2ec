import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ActionSpec, type ConfigIssue } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import type { SourceFile } from './source-file.ts';
import { closest } from '../spec/suggest.ts';
import { DOMAIN_YAML, exists, loadYamlDomain } from './yaml-domain.ts';
import { checkDomainTools } from './domain-tools.ts';
import { importUserModule, userModuleIssue } from './user-module.ts';
import { guardUserCode, UserCodeStopped } from './user-code-guard.ts';

/** A domain module found on disk and imported. */
export interface FoundDomain {
  name: string;
  /** The domain's folder, `suites/<name>`. */
  dir: string;
  domain: Domain;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** Folder names under `suites/` that hold a `domain.ts` or a `domain.yaml`. */
export async function discoverDomainNames(root: string): Promise<string[]> {
  const suites = join(root, 'suites');
  if (!(await exists(suites))) return [];
  const entries = await readdir(suites, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    // A linked domain folder is followed, like a linked task file (src/load/yaml-files.ts).
    if (!entry.isDirectory() && !(entry.isSymbolicLink() && (await isFolder(join(suites, entry.name))))) continue;
    if ((await exists(join(suites, entry.name, 'domain.ts'))) || (await exists(join(suites, entry.name, DOMAIN_YAML))))
      names.push(entry.name);
  }
  return names.sort();
}

/**
 * Folders that look like a domain's but have no `suites/<name>/domain.ts`:
 * their tasks or surfaces would be skipped silently, so they are issues.
 */
export async function findOrphanFolders(root: string, discovered: string[]): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const list = async (dir: string) => {
    try {
      return (await readdir(join(root, dir), { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  };
  for (const name of await list('suites')) {
    if (discovered.includes(name)) continue;
    const hasContent =
      (await exists(join(root, 'suites', name, 'surfaces'))) || (await exists(join(root, 'suites', name, 'tasks')));
    if (hasContent)
      issues.push({
        file: `suites/${name}`,
        message: `has surfaces or tasks but no domain.ts, so it would be skipped`,
        expected: `suites/${name}/domain.ts with a default export`,
        suggestion: closest(name, discovered),
      });
  }
  for (const name of await list('heldout')) {
    if (!discovered.includes(name))
      issues.push({
        file: `heldout/${name}`,
        message: `held-out tasks for a domain that does not exist (no suites/${name}/domain.ts)`,
        suggestion: closest(name, discovered),
      });
  }
  return issues;
}

/**
 * Pick the domains to load: the config's list (or every discovered one),
 * narrowed by the caller's list. Unknown names become issues with a suggestion.
 */
export function chooseDomains(
  discovered: string[],
  fromConfig: string[] | undefined,
  requested: string[] | undefined,
  config: SourceFile | null,
  issues: ConfigIssue[],
): string[] {
  let chosen = discovered;
  if (fromConfig) {
    fromConfig.forEach((name, index) => {
      if (!discovered.includes(name)) {
        const details = {
          message: `domain "${name}" has no suites/${name}/domain.ts`,
          suggestion: closest(name, discovered),
        };
        issues.push(
          config
            ? config.issue(['domains', index], details)
            : { file: 'toolmark.config.yaml', field: `domains[${index}]`, ...details },
        );
      }
    });
    chosen = fromConfig.filter((name) => discovered.includes(name));
  }
  if (requested) {
    for (const name of requested) {
      if (!chosen.includes(name))
        issues.push({
          file: '(command line)',
          field: 'domain',
          message: `unknown domain "${name}"`,
          expected: chosen.length > 0 ? `one of ${chosen.join(', ')}` : 'a folder suites/<name>/ with a domain.ts',
          suggestion: closest(name, chosen),
        });
    }
    chosen = chosen.filter((name) => requested.includes(name));
  }
  return chosen;
}

/**
 * Does createState hand out one object to every caller? Then trials would
 * change each other's state. Called twice at load (each state torn down);
 * not for a module whose shape is wrong (its own issue follows).
 */
async function sharesState(candidate: unknown): Promise<boolean> {
  const domain = candidate as Partial<Domain> | undefined;
  if (!domain || typeof domain.createState !== 'function') return false;
  let first: unknown;
  let second: unknown;
  try {
    first = await domain.createState();
    second = await domain.createState();
  } catch (error) {
    // A createState that fails (a server that does not start here) fails each trial, as it always did.
    if (error instanceof UserCodeStopped) throw error;
    return false;
  }
  const shared = first !== null && (typeof first === 'object' || typeof first === 'function') && first === second;
  if (typeof domain.teardown === 'function') {
    await domain.teardown(first);
    if (!shared) await domain.teardown(second);
  }
  return shared;
}

/**
 * Import `suites/<name>/domain.ts` and check its shape. Import failures and
 * malformed domains are issues, not crashes: a user's domain file is input.
 */
export async function importDomain(root: string, name: string, issues: ConfigIssue[]): Promise<FoundDomain | null> {
  const dir = join(root, 'suites', name);
  if (await exists(join(dir, DOMAIN_YAML))) {
    const domain = await loadYamlDomain(root, name, issues);
    return domain ? { name, dir, domain } : null;
  }
  const file = join(dir, 'domain.ts');
  const display = relative(root, file);
  let module: { default?: unknown };
  let sharedState = false;
  try {
    // Under a time limit, with process.exit refused (src/load/user-code-guard.ts).
    module = await guardUserCode('importing the domain module', display, () => importUserModule(file));
  } catch (error) {
    issues.push(userModuleIssue(error, file, root, 'could not import the domain module'));
    return null;
  }
  try {
    sharedState = await guardUserCode('calling createState twice', display, () => sharesState(module.default));
  } catch (error) {
    issues.push(userModuleIssue(error, file, root, 'createState'));
    return null;
  }
  const domain = module.default as Domain | undefined;
  const before = issues.length;
  const problem = (message: string, field?: string, expected?: string) =>
    issues.push({ file: display, field, message, expected });
  if (!domain || typeof domain !== 'object') {
    problem('has no default export', undefined, 'export default defineDomain({...})');
    return null;
  }
  if (!Array.isArray(domain.actions)) problem('actions must be a list', 'actions');
  if (!Array.isArray(domain.tools)) problem('tools must be a list', 'tools');
  if (typeof domain.createState !== 'function') problem('createState must be a function', 'createState');
  if (!domain.views || typeof domain.views !== 'object') problem('views must be an object of functions', 'views');
  if (issues.length > before) return null;
  if (sharedState)
    problem(
      'createState returned the same object twice: every trial would share (and change) one state',
      'createState',
      'a fresh object per call, e.g. createState: () => ({ notes: new Map() })',
    );
  if (domain.name !== name)
    problem(`domain name "${domain.name}" differs from its folder "${name}"`, 'name', `"${name}"`);

  const actionIds = new Set<string>();
  domain.actions.forEach((action, index) => {
    const parsed = ActionSpec.safeParse(action);
    if (!parsed.success)
      problem(
        `action is malformed: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`,
        `actions[${index}]`,
      );
    if (actionIds.has(action.id)) problem(`action "${action.id}" is declared twice`, `actions[${index}].id`);
    actionIds.add(action.id);
  });
  domain.actions.forEach((action, index) => {
    if (action.preview !== undefined && !actionIds.has(action.preview))
      problem(`preview action "${action.preview}" is not an action of this domain`, `actions[${index}].preview`);
  });
  const toolNames = new Set<string>();
  domain.tools.forEach((tool, index) => {
    if (toolNames.has(tool.name)) problem(`registry tool "${tool.name}" is declared twice`, `tools[${index}].name`);
    toolNames.add(tool.name);
    if (!tool.input || typeof tool.input !== 'object')
      problem(`registry tool "${tool.name}" has no input schema`, `tools[${index}].input`);
    if (typeof tool.handler !== 'function')
      problem(`registry tool "${tool.name}" has no handler function`, `tools[${index}].handler`);
  });
  if (domain.teardown !== undefined && typeof domain.teardown !== 'function')
    problem('teardown must be a function', 'teardown', 'teardown(state) { … }');
  // A domain whose tools are unusable is not loaded further: its surfaces
  // and tasks would only repeat the same problem in other words.
  const beforeTools = issues.length;
  checkDomainTools(root, domain, display, issues);
  if (issues.length > beforeTools) return null;
  return { name, dir, domain };
}
