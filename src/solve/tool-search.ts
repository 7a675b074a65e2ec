import { SEARCH_TOOL_NAME } from '../spec/index.ts';
import type {
  ExposedTool,
  NativeSearch,
  NativeToolSearch,
  NativeToolSearchOption,
  ResolvedSurface,
  SearchHit,
  SearchRecord,
  SurfaceLoading,
  ToolDefinition,
} from '../spec/index.ts';
import { Bm25Index, terms } from './bm25.ts';
import { nativeInitialView, nativeSearchOption, type NativeInitialView } from './native-payload.ts';
import { parseArguments } from './routing.ts';

/**
 * Deferred loading (issue 19): which tool definitions a request carries on
 * a `loading: deferred` surface, and the emulated `search_tools` meta-tool.
 *
 * - native (the provider's own tool search: Anthropic Messages, OpenAI
 *   Responses): every request carries the whole payload, the deferred
 *   tools marked `defer_loading`, and the adapter adds its search tool;
 *   the provider searches and reports it on the turn.
 * - emulated (every other provider, replay, scripted): a request carries
 *   the always-loaded tools, `search_tools`, and the tools earlier searches
 *   found, in the order they were found (appended, so the prefix the model
 *   has seen stays the same).
 */

/** The actions an exposed tool can mean (a multiplexed tool: every mapped action). */
export function actionsOfTool(tool: ExposedTool): string[] {
  return tool.mapping.kind === 'identity' ? [tool.mapping.action] : [...new Set(Object.values(tool.mapping.map))];
}

/** The text BM25 ranks a tool by: its name, description, and every parameter's name and description. */
export function searchText(tool: Pick<ToolDefinition, 'name' | 'description' | 'parameters'>): string[] {
  const parts = [tool.name, tool.description];
  const walk = (schema: unknown): void => {
    if (schema === null || typeof schema !== 'object') return;
    const node = schema as Record<string, unknown>;
    if (typeof node.description === 'string') parts.push(node.description);
    if (node.properties && typeof node.properties === 'object') {
      for (const [name, child] of Object.entries(node.properties as Record<string, unknown>)) {
        parts.push(name);
        walk(child);
      }
    }
    if (node.items) walk(node.items);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(node[key])) node[key].forEach(walk);
  };
  walk(tool.parameters);
  return parts.flatMap(terms);
}

/** The emulated search tool's definition, as the model sees it. */
export function searchToolDefinition(loading: SurfaceLoading, strict: boolean): ToolDefinition {
  return {
    name: SEARCH_TOOL_NAME,
    description:
      `Search the tool catalog. Only some tools are loaded; call this with a few keywords describing what you need, ` +
      `and the best ${loading.top_k} matching tools become available to call in your next turn.`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Keywords for the capability you need, e.g. "refund invoice"' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    strict,
  };
}

/** Per surface, made once: the search index over its deferred tools and the payload pieces. */
interface SurfacePlan {
  loading: SurfaceLoading;
  always: ToolDefinition[];
  search: ToolDefinition;
  /**
   * Deferred payload tools in payload order, with their definitions: distractors
   * included (no `tool`: no action maps to them), so a search can find them and a
   * model can pick one — a wrong selection, as on an eager surface.
   */
  deferred: { tool?: ExposedTool; definition: ToolDefinition }[];
  index: Bm25Index;
  /** The native payload: the whole surface, the deferred tools marked. */
  native: ToolDefinition[];
  /** Per provider tool search, made on first use: the request's search option and the up-front view it gives. */
  nativeBy: Map<NativeSearch, { option: NativeToolSearchOption; initial: NativeInitialView }>;
  /** Emulated payloads by loaded set (names joined), so equal requests share one array (and its hash and cost). */
  emulated: Map<string, ToolDefinition[]>;
}

const plans = new WeakMap<ResolvedSurface, SurfacePlan>();

function planOf(surface: ResolvedSurface): SurfacePlan | null {
  const loading = surface.loading;
  if (!loading) return null;
  let plan = plans.get(surface);
  if (plan) return plan;
  const always = new Set(loading.always_loaded);
  const toolOf = new Map(surface.tools.map((tool) => [tool.name, tool]));
  const deferred = surface.payload
    .filter((definition) => !always.has(definition.name))
    .map((definition) => ({ tool: toolOf.get(definition.name), definition }));
  plan = {
    loading,
    always: surface.payload.filter((definition) => always.has(definition.name)),
    search: searchToolDefinition(loading, surface.strict),
    deferred,
    index: new Bm25Index(deferred.map(({ definition }) => searchText(definition))),
    native: surface.payload.map((definition) =>
      always.has(definition.name) ? definition : { ...definition, defer_loading: true },
    ),
    nativeBy: new Map(),
    emulated: new Map(),
  };
  plans.set(surface, plan);
  return plan;
}

/** One object per surface and tool search, so every request of it carries the same option (and hashes it once). */
function nativeOf(plan: SurfacePlan, kind: NativeSearch) {
  let native = plan.nativeBy.get(kind);
  if (!native) {
    const option = nativeSearchOption(plan.native, plan.loading, kind);
    const always = new Set(plan.loading.always_loaded);
    native = { option, initial: nativeInitialView(plan.native, always, option) };
    plan.nativeBy.set(kind, native);
  }
  return native;
}

/** What a request on this surface carries: its tools and, on the native path, the search option. */
export function requestTools(
  surface: ResolvedSurface,
  options: { native?: NativeSearch | null; loaded?: readonly string[] } = {},
): { tools: ToolDefinition[]; tool_search?: NativeToolSearchOption } {
  const plan = planOf(surface);
  if (!plan) return { tools: surface.payload };
  if (options.native) return { tools: plan.native, tool_search: nativeOf(plan, options.native).option };
  const loaded = options.loaded ?? [];
  const key = loaded.join('\n');
  let tools = plan.emulated.get(key);
  if (!tools) {
    const byName = new Map(plan.deferred.map(({ definition }) => [definition.name, definition]));
    tools = [...plan.always, plan.search, ...loaded.map((name) => byName.get(name)!)];
    plan.emulated.set(key, tools);
  }
  return { tools };
}

/**
 * What is counted as a deferred surface's initial schema. Emulated: the
 * always-loaded tools plus `search_tools`. Native: what that provider's
 * model sees up front (native-payload.ts), and which deferred tools show a
 * stub in it (loading one then adds only what the stub left out).
 */
export function initialSchemaPayload(surface: ResolvedSurface): ToolDefinition[];
export function initialSchemaPayload(surface: ResolvedSurface, native: NativeSearch | null): NativeInitialView['view'];
export function initialSchemaPayload(
  surface: ResolvedSurface,
  native: NativeSearch | null = null,
): NativeInitialView['view'] {
  const plan = planOf(surface);
  return plan && native ? nativeOf(plan, native).initial.view : requestTools(surface).tools;
}

/** Deferred tools whose name and description a native request already shows before they are loaded. */
export function stubbedTools(surface: ResolvedSurface, native: NativeSearch | null): ReadonlySet<string> {
  const plan = planOf(surface);
  return plan && native ? nativeOf(plan, native).initial.stubbed : new Set();
}

/** The definition of one surface tool by exposed name (what loading it adds to a request). */
export function toolDefinition(surface: ResolvedSurface, name: string): ToolDefinition | undefined {
  return surface.payload.find((definition) => definition.name === name);
}

/** Rank the deferred tools (distractors included) for a query: the top-k hits, best first; a distractor means no action. */
export function searchTools(surface: ResolvedSurface, query: string): SearchHit[] {
  const plan = planOf(surface);
  if (!plan) return [];
  return plan.index
    .search(terms(query), plan.loading.top_k)
    .map(({ index }) => plan.deferred[index]!)
    .map(({ tool, definition }) => ({ tool: definition.name, actions: tool ? actionsOfTool(tool) : [] }));
}

/** The outcome of one emulated `search_tools` call: the record, and the tool result the model reads. */
export interface EmulatedSearch {
  record: SearchRecord;
  content: string;
  isError: boolean;
}

/** Run an emulated search call: `{"query": "…"}` in, the found tools' names and descriptions out. */
export function runEmulatedSearch(
  surface: ResolvedSurface,
  call: { id: string; arguments: string },
  turn: number,
): EmulatedSearch {
  const parsed = parseArguments(call.arguments);
  const query = parsed.ok ? parsed.value.query : undefined;
  if (typeof query !== 'string' || query.trim() === '') {
    const error = parsed.ok ? '`query` must be a non-empty string' : `arguments ${parsed.reason}`;
    return {
      record: { turn, id: call.id, arguments: call.arguments, results: [], error },
      content: JSON.stringify({
        code: 'invalid_arguments',
        category: 'validation',
        message: `${SEARCH_TOOL_NAME}: ${error}`,
        retryable: false,
        details: {},
      }),
      isError: true,
    };
  }
  const results = searchTools(surface, query);
  const described = results.map((hit) => ({
    name: hit.tool,
    description: toolDefinition(surface, hit.tool)?.description ?? '',
  }));
  return {
    record: { turn, id: call.id, arguments: call.arguments, results, error: null },
    content: JSON.stringify({
      tools: described,
      note:
        results.length > 0 ? 'These tools are loaded now: call them directly.' : 'No tool matched; try other words.',
    }),
    isError: false,
  };
}

/** A native search as a record: the provider's found names mapped to their actions. */
export function nativeSearchRecord(surface: ResolvedSurface, search: NativeToolSearch, turn: number): SearchRecord {
  const byName = new Map(surface.tools.map((tool) => [tool.name, tool]));
  return {
    turn,
    id: search.id,
    arguments: search.arguments,
    results: search.results.map((name) => {
      const tool = byName.get(name);
      return { tool: name, actions: tool ? actionsOfTool(tool) : [] };
    }),
    error: null,
  };
}
