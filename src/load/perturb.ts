import type {
  DescriptionPerturbation,
  DistractorSource,
  ExposedTool,
  Perturbation,
  ResolvedSurface,
  ToolDefinition,
} from '../spec/index.ts';
import { createRandom } from '../stats/random.ts';
import { generatedDistractors } from './distractors.ts';
import { makeStrict } from './tool-schema.ts';

/** Why a perturbation cannot be applied, with the field of `perturb:` it concerns. */
export interface PerturbProblem {
  path: (string | number)[];
  message: string;
  expected?: string;
}

/** The tools of a derived surface: routed tools, the payload (distractors included) and the distractor names. */
export interface PerturbedTools {
  tools: ExposedTool[];
  payload: ToolDefinition[];
  distractors: string[];
  /** Old exposed name → new one, when names were made opaque (empty otherwise). */
  renamed: Map<string, string>;
}

/** A seeded Fisher–Yates permutation of 0…n−1 (the same seed gives the same order on every platform). */
export function seededPermutation(n: number, seed: number): number[] {
  const random = createRandom(seed);
  const order = [...Array(n).keys()];
  for (let index = n - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return order;
}

/** Keep the first `k` words of a description (whitespace-separated). */
export function truncateWords(text: string, k: number): string {
  return text.split(/\s+/).filter(Boolean).slice(0, k).join(' ');
}

function cutDescription(text: string, rule: DescriptionPerturbation): string {
  return rule === 'remove' ? '' : truncateWords(text, rule.truncate_words);
}

/**
 * The distractor pool of a surface: every source in `from` order, names
 * that clash with the surface's tools or an earlier pool entry left out.
 * `external` holds the tools of `domain:` and `file:` sources, read by the caller.
 */
export function distractorPool(
  payload: readonly ToolDefinition[],
  from: readonly DistractorSource[],
  external: ReadonlyMap<DistractorSource, readonly ToolDefinition[]>,
): ToolDefinition[] {
  const taken = new Set(payload.map((tool) => tool.name));
  const pool: ToolDefinition[] = [];
  for (const source of from) {
    const tools = source === 'generated' ? generatedDistractors(payload) : (external.get(source) ?? []);
    for (const tool of tools) {
      if (taken.has(tool.name)) continue;
      taken.add(tool.name);
      pool.push(tool);
    }
  }
  return pool;
}

/**
 * Derive a perturbed surface's tools (issue 19 item 3), in a fixed order:
 * distractors are added (a seeded draw from the pool, so a larger count
 * keeps a smaller count's picks), descriptions are cut, names are made
 * opaque (`tool_01`… in payload order), then the order is shuffled. A
 * distractor is in the payload only: no exposed tool routes it, so a call
 * to one is an unknown tool for the registry and a wrong selection for scoring.
 */
export function perturbTools(
  surface: Pick<ResolvedSurface, 'tools' | 'payload' | 'strict'>,
  perturb: Perturbation,
  external: ReadonlyMap<DistractorSource, readonly ToolDefinition[]>,
): PerturbedTools | PerturbProblem {
  // Payload entries and exposed tools are paired by position (the loader builds them together).
  let tools = surface.tools.map((tool) => ({ ...tool }));
  let payload = surface.payload.map((tool) => ({ ...tool }));
  let distractors: ToolDefinition[] = [];

  if (perturb.distractors) {
    const { count, total, from, seed } = perturb.distractors;
    const wanted = count ?? total! - payload.length;
    if (wanted < 0)
      return {
        path: ['distractors', 'total'],
        message: `total ${total} is below the ${payload.length} tools the surface already has`,
        expected: `at least ${payload.length}`,
      };
    const pool = distractorPool(payload, from, external);
    if (wanted > pool.length)
      return {
        path: ['distractors', count !== undefined ? 'count' : 'total'],
        message: `${wanted} distractors asked for, but the sources (${from.join(', ')}) give only ${pool.length} tools with new names`,
        expected: `at most ${count !== undefined ? pool.length : payload.length + pool.length}, or more sources in \`from\``,
      };
    distractors = seededPermutation(pool.length, seed)
      .slice(0, wanted)
      .map((index) => {
        const tool = structuredClone(pool[index]!);
        if (surface.strict) makeStrict(tool.parameters);
        return { ...tool, strict: surface.strict };
      });
  }
  let all = [...payload, ...distractors];
  let distractorNames = new Set(distractors.map((tool) => tool.name));
  let renamedNames = new Map<string, string>();

  if (perturb.descriptions) {
    const rule = perturb.descriptions;
    all = all.map((tool) => ({ ...tool, description: cutDescription(tool.description, rule) }));
  }

  if (perturb.names === 'opaque') {
    const width = Math.max(2, String(all.length).length);
    const renamed = new Map(all.map((tool, index) => [tool.name, `tool_${String(index + 1).padStart(width, '0')}`]));
    // A description that names another tool ("use lookup_slow only…") names its new name, so no old name leaks.
    all = all.map((tool) => ({
      ...tool,
      name: renamed.get(tool.name)!,
      description: renameMentions(tool.description, renamed),
    }));
    distractorNames = new Set([...distractorNames].map((name) => renamed.get(name)!));
    tools = tools.map((tool) => ({ ...tool, name: renamed.get(tool.name)! }));
    renamedNames = renamed;
  }

  if (perturb.shuffle) {
    const order = seededPermutation(all.length, perturb.shuffle.seed);
    all = order.map((index) => all[index]!);
  }

  // Exposed tools follow the payload's names, descriptions and order.
  const byName = new Map(all.map((tool) => [tool.name, tool]));
  tools = tools.map((tool) => ({ ...tool, description: byName.get(tool.name)!.description }));
  const rank = new Map(all.map((tool, index) => [tool.name, index]));
  tools.sort((a, b) => rank.get(a.name)! - rank.get(b.name)!);
  payload = all;
  return {
    tools,
    payload,
    distractors: payload.map((tool) => tool.name).filter((name) => distractorNames.has(name)),
    renamed: renamedNames,
  };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replace whole-name mentions of renamed tools in a text (longest names first, so `get_ticket_v2` wins over `get_ticket`). */
function renameMentions(text: string, renamed: ReadonlyMap<string, string>): string {
  const names = [...renamed.keys()].filter((name) => text.includes(name)).sort((a, b) => b.length - a.length);
  if (names.length === 0) return text;
  const pattern = new RegExp(`(?<![A-Za-z0-9_.-])(?:${names.map(escape).join('|')})(?![A-Za-z0-9_-])`, 'g');
  return text.replace(pattern, (name) => renamed.get(name)!);
}

export function isPerturbProblem(value: PerturbedTools | PerturbProblem): value is PerturbProblem {
  return 'message' in value;
}
