import type { Command } from 'commander';
import type { NativeSearch, ToolDefinition } from '../../spec/index.ts';
import { collect } from '../cli-helpers.ts';

interface TokensFlags {
  root: string;
  domain?: string[];
  surface?: string[];
  provider?: string;
  json?: boolean;
  payload?: string;
}

/** A provider that can count a tools payload with its own tokenizer (Anthropic's count-tokens API). */
interface TokenCounter {
  model: string;
  countSchemaTokens(model: string, tools: readonly ToolDefinition[]): Promise<number>;
}

/** One row of the cost table. */
export interface ToolCost {
  domain: string;
  surface: string;
  hash: string;
  /** Null for the surface total. */
  tool: string | null;
  /**
   * Deferred surfaces: `initial` marks the emulated first request's row
   * (always-loaded tools + search_tools); `initial-anthropic` and
   * `initial-openai` what that provider's native tool search shows up front.
   */
  loading?: 'initial' | `initial-${NativeSearch}`;
  bytes: number;
  tokens: number;
  /** Tokens by the provider's own count API, with `--provider` (null without). */
  provider_tokens: number | null;
}

async function tokensAction(flags: TokensFlags): Promise<void> {
  const { loadProject } = await import('../../load/index.ts');
  const { schemaCost } = await import('../../cost/schema-cost.ts');
  const { ConfigError } = await import('../../spec/index.ts');
  const { closest } = await import('../../spec/suggest.ts');
  const { formatTable } = await import('./validate.ts');
  const { initialSchemaPayload } = await import('../../solve/tool-search.ts');
  const nativeSearches = (await import('../../spec/index.ts')).NativeSearch.options;

  const project = await loadProject(flags.root, { domains: flags.domain });
  const surfaces = project.domains.flatMap((domain) => domain.surfaces);
  const wanted = flags.surface ?? surfaces.map((surface) => surface.id);
  const ids = surfaces.map((surface) => surface.id);
  const unknown = wanted.filter((id) => !ids.includes(id));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((id) => ({
        file: '(command line)',
        field: 'surface',
        message: `unknown surface "${id}"`,
        expected: `one of ${ids.join(', ')}`,
        suggestion: closest(id, ids),
      })),
    );
  }

  if (flags.payload !== undefined) {
    // The exact `tools` array each provider receives, by the adapters' own encoders.
    const { PAYLOAD_FORMATS, providerToolsPayload } = await import('../../../providers/tool-payload.ts');
    const format = PAYLOAD_FORMATS.find((candidate) => candidate === flags.payload);
    if (!format)
      throw new ConfigError({
        file: '(command line)',
        field: '--payload',
        message: `unknown payload format "${flags.payload}"`,
        expected: `one of ${PAYLOAD_FORMATS.join(', ')}`,
        suggestion: closest(flags.payload, PAYLOAD_FORMATS),
      });
    const chosen = surfaces.filter((candidate) => wanted.includes(candidate.id));
    if (chosen.length !== 1)
      throw new ConfigError({
        file: '(command line)',
        field: '--payload',
        message: `--payload exports one surface; ${chosen.length} are selected`,
        expected: '--surface ID (and --domain NAME when ids repeat)',
      });
    process.stdout.write(`${JSON.stringify(providerToolsPayload(format, chosen[0]!.payload), null, 2)}\n`);
    return;
  }
  const counter = flags.provider ? await tokenCounter(flags.provider, project.config) : null;
  const countWithProvider = async (tools: readonly ToolDefinition[]) =>
    counter ? counter.countSchemaTokens(counter.model, tools) : null;

  const rows: ToolCost[] = [];
  for (const surface of surfaces.filter((candidate) => wanted.includes(candidate.id))) {
    // Per tool: that tool's definition alone; total: the whole payload array, exactly as sent.
    for (const tool of surface.payload) {
      rows.push({
        domain: surface.domain,
        surface: surface.id,
        hash: surface.hash,
        tool: tool.name,
        ...schemaCost(tool),
        provider_tokens: await countWithProvider([tool]),
      });
    }
    rows.push({
      domain: surface.domain,
      surface: surface.id,
      hash: surface.hash,
      tool: null,
      ...schemaCost(surface.payload),
      provider_tokens: await countWithProvider(surface.payload),
    });
    if (surface.loading) {
      // Deferred: what the first request carries (the total above is what loading every tool would cost).
      const initial = initialSchemaPayload(surface);
      rows.push({
        domain: surface.domain,
        surface: surface.id,
        hash: surface.hash,
        tool: null,
        loading: 'initial',
        ...schemaCost(initial),
        provider_tokens: await countWithProvider(initial),
      });
      // Native: what the model sees before it searches (docs/large-surfaces.md, "schema tokens").
      for (const native of nativeSearches) {
        rows.push({
          domain: surface.domain,
          surface: surface.id,
          hash: surface.hash,
          tool: null,
          loading: `initial-${native}`,
          ...schemaCost(initialSchemaPayload(surface, native)),
          provider_tokens: null,
        });
      }
    }
  }

  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ tokenizer: 'o200k_base', serialisation: 'compact JSON of the normalised tools payload', provider: flags.provider ?? null, rows }, null, 2)}\n`,
    );
    return;
  }
  const providerColumn = counter ? [`${flags.provider} tokens`] : [];
  const table = [['domain', 'surface', 'tool', 'bytes', 'tokens', ...providerColumn]];
  for (const row of rows) {
    table.push([
      row.domain,
      row.surface,
      row.loading === undefined ? (row.tool ?? '(total payload)') : INITIAL_LABELS[row.loading],
      String(row.bytes),
      String(row.tokens),
      ...(counter ? [String(row.provider_tokens)] : []),
    ]);
  }
  const note = counter
    ? `; ${flags.provider} tokens: the provider's own count API (input tokens with the tools minus without them, so its tool-use preamble is included)`
    : '';
  process.stdout.write(
    `${formatTable(table)}\n\nTokens: o200k_base over the compact JSON of the normalised tools payload (what toolmark sends an adapter); providers add their own wrapping${note}.\n`,
  );
}

const INITIAL_LABELS: Record<NonNullable<ToolCost['loading']>, string> = {
  initial: '(deferred: initial request = always-loaded + search_tools)',
  'initial-anthropic': '(deferred, Anthropic native: always-loaded tools)',
  'initial-openai': '(deferred, OpenAI native: always-loaded + namespace/function names)',
};

/** The provider named by `--provider`, when it has a count API; a ConfigError otherwise (before any call). */
async function tokenCounter(text: string, config: import('../../spec/index.ts').ProjectConfig): Promise<TokenCounter> {
  const { parseProviderSpec, createProvider } = await import('../../../providers/index.ts');
  const { ConfigError } = await import('../../spec/index.ts');
  const provider = await createProvider(parseProviderSpec(text, config.providers), { config, env: process.env });
  if (!provider.countSchemaTokens) {
    throw new ConfigError({
      file: '(command line)',
      field: '--provider',
      message: `${text} has no token-count API`,
      expected: 'an anthropic:MODEL provider (OpenAI-style payloads are counted with o200k already)',
    });
  }
  return { model: provider.model, countSchemaTokens: provider.countSchemaTokens.bind(provider) };
}

/** `toolmark tokens`: schema bytes and o200k tokens per surface and per tool. */
export function describe(program: Command, _setExitCode: (code: number) => void): Command {
  return program
    .command('tokens')
    .description('Schema bytes and o200k tokens of each surface’s tools payload, per tool and in total')
    .option('--root <dir>', 'project root', process.cwd())
    .option('--domain <name>', 'only this domain (repeatable)', collect)
    .option('--surface <id>', 'only this surface (repeatable)', collect)
    .option('--provider <spec>', "also count with the provider's own count API, e.g. anthropic:MODEL (needs its key)")
    .option('--json', 'machine-readable output')
    .option(
      '--payload <format>',
      'print the exact tools array a provider receives for one surface: openai | openai-responses | anthropic',
    )
    .action((flags: TokensFlags) => tokensAction(flags));
}
