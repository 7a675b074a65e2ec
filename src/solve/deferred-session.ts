import { schemaCost } from '../cost/schema-cost.ts';
import { SEARCH_TOOL_NAME } from '../spec/index.ts';
import type {
  LoadingRecord,
  ModelTurn,
  NativeSearch,
  ResolvedSurface,
  SearchRecord,
  ToolCallProposal,
} from '../spec/index.ts';
import {
  actionsOfTool,
  initialSchemaPayload,
  nativeSearchRecord,
  requestTools,
  runEmulatedSearch,
  stubbedTools,
  toolDefinition,
} from './tool-search.ts';
import type { EmulatedSearch } from './tool-search.ts';

/**
 * One trial's deferred loading: which tools searches have loaded so far,
 * the request tools of each turn, and the facts the record keeps (schema
 * tokens per turn and per loaded tool, every search with its results).
 */
export class DeferredSession {
  private readonly loaded: string[] = [];
  private readonly loadedAt: LoadingRecord['loaded'] = [];
  private readonly searches: SearchRecord[] = [];
  private readonly turnTokens: number[] = [];
  readonly initialCost: { bytes: number; tokens: number };
  /** Deferred tools the first request already shows by name and description (OpenAI's flat deferred functions). */
  private readonly stubbed: ReadonlySet<string>;

  constructor(
    private readonly surface: ResolvedSurface,
    /** The provider's own tool search, or null: the runner emulates it with `search_tools`. */
    readonly native: NativeSearch | null,
  ) {
    this.initialCost = schemaCost(initialSchemaPayload(surface, native));
    this.stubbed = stubbedTools(surface, native);
  }

  /** The tools (and native search option) of the next request; notes its schema tokens. */
  requestTools(): ReturnType<typeof requestTools> {
    const tools = requestTools(this.surface, { native: this.native, loaded: this.loaded });
    // Native requests send the whole catalog, but a deferred tool's schema is not in the context until
    // found: the turn's cost is the initial view plus what its searches loaded (summed, not re-counted).
    this.turnTokens.push(
      this.native
        ? this.initialCost.tokens + this.loadedAt.reduce((sum, entry) => sum + entry.tokens, 0)
        : schemaCost(tools.tools).tokens,
    );
    return tools;
  }

  /** Is this proposal the emulated search meta-tool (never a domain call)? */
  isSearchCall(proposal: ToolCallProposal): boolean {
    return !this.native && proposal.name === SEARCH_TOOL_NAME;
  }

  /** Run an emulated search; its hits join the following request. */
  search(proposal: ToolCallProposal, turn: number): EmulatedSearch {
    const outcome = runEmulatedSearch(this.surface, proposal, turn);
    this.note(outcome.record);
    return outcome;
  }

  /** Record the searches a provider ran itself in this turn (native path). */
  noteNative(turn: ModelTurn, index: number): void {
    for (const search of turn.tool_searches ?? []) this.note(nativeSearchRecord(this.surface, search, index));
  }

  private note(record: SearchRecord): void {
    this.searches.push(record);
    for (const hit of record.results) {
      if (this.loaded.includes(hit.tool)) continue;
      const definition = toolDefinition(this.surface, hit.tool);
      if (!definition) continue;
      this.loaded.push(hit.tool);
      // A tool the first request already showed by name and description adds only the rest.
      const shown = this.stubbed.has(hit.tool)
        ? schemaCost({ name: definition.name, description: definition.description }).tokens
        : 0;
      this.loadedAt.push({
        turn: record.turn,
        tool: hit.tool,
        tokens: Math.max(0, schemaCost(definition).tokens - shown),
      });
    }
  }

  record(): LoadingRecord {
    const loading = this.surface.loading!;
    const always = new Set(loading.always_loaded);
    return {
      via: this.native ? 'native' : 'emulated',
      initial_schema_tokens: this.initialCost.tokens,
      turn_schema_tokens: this.turnTokens,
      loaded: this.loadedAt,
      searches: this.searches,
      always_loaded_actions: this.surface.tools.filter((tool) => always.has(tool.name)).flatMap(actionsOfTool),
      top_k: loading.top_k,
    };
  }
}
