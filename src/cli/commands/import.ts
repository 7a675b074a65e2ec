import type { Command } from 'commander';
import { collect } from '../cli-helpers.ts';

interface ImportFlags {
  root: string;
  name: string;
  description?: string;
  url?: string;
  header?: string[];
  env?: string[];
  force?: boolean;
  format?: string;
}

/** `NAME=VALUE` pairs of a repeatable flag, as a record. */
async function pairs(flag: string, values: string[]): Promise<Record<string, string>> {
  const { ConfigError } = await import('../../spec/errors.ts');
  return Object.fromEntries(
    values.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0)
        throw new ConfigError({ file: '(command line)', field: flag, message: `"${pair}" is not NAME=VALUE` });
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** Write the imported files under `suites/<name>/`, refusing to overwrite unless asked. */
async function writeFiles(
  root: string,
  name: string,
  files: Record<string, string>,
  force: boolean,
): Promise<string[]> {
  const { existsSync } = await import('node:fs');
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { dirname, join, relative } = await import('node:path');
  const dir = join(root, 'suites', name);
  const { ConfigError } = await import('../../spec/errors.ts');
  if (!force && existsSync(join(dir, 'domain.yaml'))) {
    throw new ConfigError({
      file: relative(root, join(dir, 'domain.yaml')),
      message: 'already exists',
      expected: 'a new domain name, or --force to overwrite the imported files',
    });
  }
  const written: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
    written.push(relative(root, target));
  }
  return written;
}

function printSummary(
  written: string[],
  tools: import('../../spec/index.ts').ImportedTool[],
  contracts: Array<{ effect: string; approval: string; hint: string }>,
  formatTable: (rows: string[][]) => string,
): void {
  const rows = [['tool', 'effect', 'approval', 'proposed from']];
  tools.forEach((tool, index) =>
    rows.push([tool.name, contracts[index]!.effect, contracts[index]!.approval, contracts[index]!.hint]),
  );
  process.stdout.write(
    `${formatTable(rows)}\n\nwrote ${written.join(', ')}\nThe contract is proposed from hints: review each action in domain.yaml and set reviewed: true.\n`,
  );
}

async function importMcp(command: string[], flags: ImportFlags): Promise<void> {
  const { resolve, join } = await import('node:path');
  const { ConfigError } = await import('../../spec/errors.ts');
  const { McpServerConfig, literalHeaderValues } = await import('../../domains/mcp/server-config.ts');
  const { ServerPool } = await import('../../domains/mcp/server-pool.ts');
  const { importedDomainFiles, proposeContract } = await import('../../domains/import-files.ts');
  const { formatTable } = await import('./validate.ts');
  const root = resolve(flags.root);
  if ((command.length === 0) === (flags.url === undefined)) {
    throw new ConfigError({
      file: '(command line)',
      field: 'import mcp',
      message: 'give the server either as a command after -- or as --url URL',
      expected: 'toolmark import mcp --name NAME -- <command…>, or --url URL',
    });
  }
  const raw: Record<string, unknown> =
    flags.url !== undefined
      ? { url: flags.url, ...(flags.header ? { headers: await pairs('--header', flags.header) } : {}) }
      : { command: command[0], args: command.slice(1), ...(flags.env ? { env: await pairs('--env', flags.env) } : {}) };
  if (JSON.stringify(raw).includes('{workdir}')) raw.workdir = {};
  const parsed = McpServerConfig.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError({
      file: '(command line)',
      field: 'import mcp',
      message: parsed.error.issues.map((issue) => issue.message).join('; '),
    });
  const literal = literalHeaderValues(parsed.data);
  if (literal.length > 0) {
    throw new ConfigError({
      file: '(command line)',
      field: '--header',
      message: `header ${literal.join(', ')} has a literal value, which would be written to disk`,
      expected: 'a value naming an environment variable, e.g. Authorization="Bearer {env:TOOLS_TOKEN}"',
    });
  }
  const pool = new ServerPool({ ...parsed.data, max_sessions: 1 }, join(root, 'suites', flags.name));
  let listed: import('../../spec/index.ts').McpTool[];
  try {
    const lease = await pool.lease();
    listed = await lease.session.listTools();
  } catch (error) {
    throw new ConfigError({
      file: '(command line)',
      field: 'import mcp',
      message: error instanceof Error ? error.message : String(error),
    });
  } finally {
    await pool.closeAll();
  }
  const tools = listed;
  const files = importedDomainFiles({
    name: flags.name,
    description: flags.description ?? `MCP server ${flags.url ?? command.join(' ')}`,
    tools,
    format: 'mcp',
    toolsJson: { tools: listed },
    server: raw,
  });
  const written = await writeFiles(root, flags.name, files, flags.force ?? false);
  printSummary(
    written,
    tools,
    tools.map((tool) => proposeContract(flags.name, tool, true)),
    formatTable,
  );
}

async function importTools(file: string, flags: ImportFlags): Promise<void> {
  const { resolve } = await import('node:path');
  const { readFile } = await import('node:fs/promises');
  const { ConfigError, ToolFileFormat } = await import('../../spec/index.ts');
  const { readToolFile } = await import('../../load/tool-files.ts');
  const { importedDomainFiles, proposeContract } = await import('../../domains/import-files.ts');
  const { formatTable } = await import('./validate.ts');
  const root = resolve(flags.root);
  const issues: import('../../spec/index.ts').ConfigIssue[] = [];
  const format = flags.format === undefined ? undefined : ToolFileFormat.parse(flags.format);
  const read = await readToolFile(resolve(file), root, issues, { format });
  if (!read) throw new ConfigError(issues);
  const files = importedDomainFiles({
    name: flags.name,
    description: flags.description ?? `tools imported from ${file}`,
    tools: read.tools,
    format: read.format,
    toolsJson: JSON.parse(await readFile(resolve(file), 'utf8')),
  });
  const written = await writeFiles(root, flags.name, files, flags.force ?? false);
  printSummary(
    written,
    read.tools,
    read.tools.map((tool) => proposeContract(flags.name, tool, read.format === 'mcp')),
    formatTable,
  );
}

/** `toolmark import mcp|tools`: a domain and a surface from a live MCP server or a tools file. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  const command = program
    .command('import')
    .description(
      'Write a domain and a surface from a live MCP server (tools/list) or an OpenAI/Anthropic/MCP tools file',
    );
  const common = (sub: Command) =>
    sub
      .requiredOption('--name <name>', 'domain name (folder under suites/)')
      .option('--root <dir>', 'project root', process.cwd())
      .option('--description <text>', 'domain description')
      .option('--force', 'overwrite an existing imported domain');
  common(
    command
      .command('mcp')
      .description('Import a live MCP server: toolmark import mcp --name NAME -- <command…>, or --url URL')
      .argument(
        '[command...]',
        'the stdio server command and its arguments (after --); {workdir} = a fresh temporary folder',
      )
      .option('--url <url>', 'a streamable HTTP server')
      .option(
        '--header <name=value>',
        'HTTP header; the value must name an environment variable: "Bearer {env:TOKEN}" (repeatable)',
        collect,
      )
      .option('--env <name=value>', 'environment variable for the stdio server (repeatable)', collect),
  ).action((args: string[], flags: ImportFlags) => importMcp(args, flags));
  common(
    command
      .command('tools')
      .description('Import a tools file: an OpenAI or Anthropic tools array, or a saved MCP tools/list result')
      .argument('<file>', 'the tools file (JSON or YAML)')
      .option('--format <format>', 'openai | openai-responses | anthropic | mcp (default: detected)'),
  ).action((file: string, flags: ImportFlags) => importTools(file, flags));
  return command;
}
