import type { DistractorSource, ImportedTool, ToolDefinition } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { jsonSchemaOf } from '../registry/index.ts';

/**
 * Where `domain:` and `file:` distractor sources are read from. The loader
 * passes one that imports other domains on demand; the sweep passes the same.
 * Each returns the tools as a model would see them, or a problem to report.
 */
export interface DistractorSources {
  domain(name: string): Promise<ToolDefinition[] | { problem: string; choices: string[] }>;
  file(path: string): Promise<ToolDefinition[] | { problem: string }>;
}

/** A domain's registry tools as payload entries (name, description, input schema). */
export function domainDistractors(domain: Domain): ToolDefinition[] {
  return domain.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: jsonSchemaOf(tool.input),
    strict: false,
  }));
}

/** Tools of an imported tools file (OpenAI, Anthropic, MCP `tools/list`) as payload entries. */
export function fileDistractors(tools: readonly ImportedTool[]): ToolDefinition[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: structuredClone(tool.inputSchema),
    strict: false,
  }));
}

/**
 * Verbs a confused model reads as the same intent. `generated` distractors
 * swap a tool's verb for one of these, round by round (every tool's first
 * synonym, then every tool's second, …), so a small count already touches
 * every tool.
 */
const VERB_SYNONYMS: Record<string, readonly string[]> = {
  get: ['fetch', 'read', 'retrieve', 'show', 'load'],
  list: ['browse', 'search', 'enumerate', 'find', 'scan'],
  lookup: ['find', 'query', 'resolve', 'fetch', 'seek'],
  search: ['find', 'query', 'browse', 'lookup', 'scan'],
  preview: ['draft', 'simulate', 'check', 'prepare', 'review'],
  record: ['save', 'log', 'commit', 'write', 'store'],
  submit: ['send', 'issue', 'apply', 'file', 'post'],
  create: ['add', 'make', 'open', 'register', 'insert'],
  update: ['edit', 'change', 'modify', 'patch', 'set'],
  delete: ['remove', 'drop', 'erase', 'purge', 'clear'],
};
const FALLBACK_VERBS: readonly string[] = ['manage', 'handle', 'process', 'run', 'do'];
export const GENERATED_ROUNDS = FALLBACK_VERBS.length;

/** Split a name into its words and the separators between them, so a swapped word keeps the name's style. */
function words(name: string): string[] {
  return name.split(/([._-])/);
}

/** The near-synonym of one tool for one round, or null when the tool has no verb to swap. */
function nearSynonym(tool: ToolDefinition, round: number): ToolDefinition {
  const parts = words(tool.name);
  // The verb: the first word with synonyms; dotted ids (`billing.invoice.get`) put it last.
  const order = tool.name.includes('.') ? [...parts.keys()].reverse() : [...parts.keys()];
  const at = order.find((index) => VERB_SYNONYMS[parts[index]!.toLowerCase()] !== undefined);
  let name: string;
  let verb: string;
  if (at === undefined) {
    verb = FALLBACK_VERBS[round]!;
    const separator = tool.name.includes('.') ? '.' : '_';
    name = `${verb}${separator}${tool.name}`;
  } else {
    verb = VERB_SYNONYMS[parts[at]!.toLowerCase()]![round]!;
    name = parts.map((part, index) => (index === at ? verb : part)).join('');
  }
  const capital = verb.charAt(0).toUpperCase() + verb.slice(1);
  return {
    name,
    description: `${capital}: ${tool.description}`.trim(),
    parameters: structuredClone(tool.parameters),
    strict: false,
  };
}

/** `generated`: near-synonyms of the surface's own tools, round by round. */
export function generatedDistractors(payload: readonly ToolDefinition[]): ToolDefinition[] {
  const pool: ToolDefinition[] = [];
  for (let round = 0; round < GENERATED_ROUNDS; round += 1)
    for (const tool of payload) pool.push(nearSynonym(tool, round));
  return pool;
}

/** What a source string names: `{kind: 'domain', name}`, `{kind: 'file', path}` or `{kind: 'generated'}`. */
export function parseDistractorSource(
  source: DistractorSource,
): { kind: 'domain'; name: string } | { kind: 'file'; path: string } | { kind: 'generated' } {
  if (source === 'generated') return { kind: 'generated' };
  if (source.startsWith('domain:')) return { kind: 'domain', name: source.slice('domain:'.length) };
  return { kind: 'file', path: source.slice('file:'.length) };
}
