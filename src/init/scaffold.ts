import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { readToolFile } from '../load/tool-files.ts';
import { ConfigError, type ConfigIssue } from '../spec/index.ts';
import { domainSource, type ToolOrigin } from './domain-source.ts';
import { configSource, starterCassette, surfaceSource, taskFileSource, SCAFFOLD_SURFACE } from './project-files.ts';
import { fromImported, TEMPLATE_TOOLS, type ScaffoldTool } from './scaffold-tool.ts';
import { workflowSource } from './workflow.ts';

/** Options of `toolmark init [dir]`. */
export interface ScaffoldOptions {
  dir: string;
  /** Domain name (the folder under suites/); default `notes` for the template, else the tools file's name. */
  name?: string;
  /** Build the domain from this tools file instead of the template. */
  from?: { file: string; provider: 'openai' | 'anthropic' };
  /** Replace files that exist. */
  force?: boolean;
}

/** What `init` wrote, relative to its folder. */
export interface ScaffoldResult {
  dir: string;
  domain: string;
  files: string[];
}

const DOMAIN_NAME = /^[a-z][a-z0-9-]*$/;
const LIVE = {
  openai: { model: 'openai:gpt-4.1-mini', keyEnv: 'OPENAI_API_KEY' },
  anthropic: { model: 'anthropic:claude-sonnet-4-5', keyEnv: 'ANTHROPIC_API_KEY' },
} as const;

async function toolsFrom(options: ScaffoldOptions): Promise<{ tools: ScaffoldTool[]; origin: ToolOrigin }> {
  if (!options.from) return { tools: TEMPLATE_TOOLS, origin: { kind: 'template' } };
  const issues: ConfigIssue[] = [];
  const file = await readToolFile(resolve(options.from.file), process.cwd(), issues);
  if (!file) throw new ConfigError(issues);
  const wanted = options.from.provider === 'openai' ? ['openai', 'openai-responses'] : ['anthropic'];
  if (!wanted.includes(file.format)) {
    throw new ConfigError({
      file: file.file,
      message: `is a ${file.format} tools file`,
      expected: `an ${options.from.provider === 'openai' ? 'OpenAI (Chat Completions or Responses)' : 'Anthropic Messages'} tools array; use --from-${file.format.startsWith('openai') ? 'openai' : file.format}`,
    });
  }
  if (file.tools.length === 0)
    throw new ConfigError({ file: file.file, message: 'has no tools', expected: 'at least one tool' });
  return {
    tools: file.tools.map(fromImported),
    origin: { kind: 'file', file: basename(file.file), format: file.format },
  };
}

function defaultName(options: ScaffoldOptions): string {
  if (!options.from) return 'notes';
  const stem = basename(options.from.file)
    .replace(/\.[^.]+$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return DOMAIN_NAME.test(stem) ? stem : 'tools';
}

/**
 * Scaffold a toolmark project in a user's repository: the config, one
 * domain (from an OpenAI or Anthropic tools file, or a commented template),
 * one surface, a train and a held-out task file with one task of each kind,
 * a hand-written starter cassette (so the first run needs no key) and a
 * GitHub Actions workflow. Refuses to overwrite a file unless `force`.
 */
export async function scaffoldProject(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const dir = resolve(options.dir);
  const domain = options.name ?? defaultName(options);
  if (!DOMAIN_NAME.test(domain))
    throw new ConfigError({
      file: '--name',
      field: domain,
      message: 'not a usable domain name',
      expected: 'lower-case letters, digits and dashes, starting with a letter (it names a folder)',
    });
  const { tools, origin } = await toolsFrom(options);
  const live = LIVE[options.from?.provider ?? 'openai'];
  const description =
    origin.kind === 'file' ? `Tools from ${origin.file}` : 'A notes backend (template: replace with your own tools)';

  const files: Record<string, string> = {
    'toolmark.config.yaml': configSource(domain, live.model),
    // Domain files are ES modules whatever the project's own package.json says.
    'suites/package.json': `${JSON.stringify({ type: 'module' }, null, 2)}\n`,
    [`suites/${domain}/domain.ts`]: domainSource(domain, description, tools, origin),
    [`suites/${domain}/surfaces/${SCAFFOLD_SURFACE}.yaml`]: surfaceSource(tools),
    [`suites/${domain}/tasks/starter.yaml`]: taskFileSource(domain, 'train', tools),
    [`heldout/${domain}/tasks/starter.yaml`]: taskFileSource(domain, 'heldout', tools),
    [`suites/${domain}/cassettes/starter.jsonl`]: starterCassette(domain, tools),
    '.github/workflows/toolmark.yml': workflowSource(domain, live.model, live.keyEnv),
  };
  const existing = Object.keys(files).filter((file) => existsSync(join(dir, file)));
  if (existing.length > 0 && !options.force) {
    throw new ConfigError(
      existing.map((file) => ({
        file: relative(process.cwd(), join(dir, file)) || file,
        message: 'already exists; toolmark init does not overwrite files',
        expected: 'a folder without a toolmark project, or --force',
      })),
    );
  }
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return { dir, domain, files: Object.keys(files) };
}
