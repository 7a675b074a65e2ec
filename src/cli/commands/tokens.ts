import type { Command } from 'commander';

interface TokensFlags {
  root: string;
  domain?: string[];
  surface?: string[];
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** One row of the cost table. */
export interface ToolCost {
  domain: string;
  surface: string;
  hash: string;
  /** Null for the surface total. */
  tool: string | null;
  bytes: number;
  tokens: number;
}

async function tokensAction(flags: TokensFlags): Promise<void> {
  const { loadProject } = await import('../../load/index.ts');
  const { schemaCost } = await import('../../cost/schema-cost.ts');
  const { ConfigError } = await import('../../spec/index.ts');
  const { closest } = await import('../../load/suggest.ts');
  const { formatTable } = await import('./validate.ts');

  const project = await loadProject(flags.root, { domains: flags.domain });
  const surfaces = project.domains.flatMap((domain) => domain.surfaces);
  const wanted = flags.surface ?? surfaces.map((surface) => surface.id);
  const ids = surfaces.map((surface) => surface.id);
  const unknown = wanted.filter((id) => !ids.includes(id));
  if (unknown.length > 0) {
    throw new ConfigError(unknown.map((id) => ({ file: '(command line)', field: 'surface', message: `unknown surface "${id}"`, expected: `one of ${ids.join(', ')}`, suggestion: closest(id, ids) })));
  }

  const rows: ToolCost[] = [];
  for (const surface of surfaces.filter((candidate) => wanted.includes(candidate.id))) {
    // Per tool: that tool's definition alone; total: the whole payload array, exactly as sent.
    for (const tool of surface.payload) rows.push({ domain: surface.domain, surface: surface.id, hash: surface.hash, tool: tool.name, ...schemaCost(tool) });
    rows.push({ domain: surface.domain, surface: surface.id, hash: surface.hash, tool: null, ...schemaCost(surface.payload) });
  }

  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ tokenizer: 'o200k_base', serialisation: 'compact JSON of the normalised tools payload', rows }, null, 2)}\n`);
    return;
  }
  const table = [['domain', 'surface', 'tool', 'bytes', 'tokens']];
  for (const row of rows) table.push([row.domain, row.surface, row.tool ?? '(total payload)', String(row.bytes), String(row.tokens)]);
  process.stdout.write(`${formatTable(table)}\n\nTokens: o200k_base over the compact JSON of the normalised tools payload (what toolmark sends an adapter); providers add their own wrapping.\n`);
}

/** `toolmark tokens`: schema bytes and o200k tokens per surface and per tool. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('tokens')
    .description('Schema bytes and o200k tokens of each surface’s tools payload, per tool and in total')
    .option('--root <dir>', 'project root', process.cwd())
    .option('--domain <name>', 'only this domain (repeatable)', collect)
    .option('--surface <id>', 'only this surface (repeatable)', collect)
    .option('--json', 'machine-readable output')
    .action((flags: TokensFlags) => tokensAction(flags));
}
