import { z } from 'zod';

/**
 * Deferred loading (issue 19 item 1): the surface fields that say which
 * tools the model sees up front and how it finds the others. Kept in its
 * own file so the surface schema's other options (visibility, perturbations)
 * merge without touching these.
 */

/** The name of the emulated search meta-tool (never a domain action; a deferred surface may not expose a tool of this name). */
export const SEARCH_TOOL_NAME = 'search_tools';
/** How many tools one emulated search returns when the surface does not say. */
export const DEFAULT_SEARCH_TOP_K = 5;

/** The native search variants of the Anthropic Messages tool search tool. */
export const ANTHROPIC_SEARCH_VARIANTS = ['bm25', 'regex'] as const;

/**
 * How a deferred surface goes to OpenAI Responses' tool search:
 * `namespaces` (the default) groups dotted names into `namespace` tools by
 * their first segment (search-namespaces.ts), `functions` sends every
 * deferred tool as a flat function.
 */
export const OPENAI_SEARCH_GROUPINGS = ['namespaces', 'functions'] as const;

/** Which provider's own tool search a provider speaks (`Provider.toolSearch`, a cassette line's `tool_search`). */
export const NativeSearch = z.enum(['anthropic', 'openai']);
export type NativeSearch = z.infer<typeof NativeSearch>;

/** The fields a surface YAML file may set (a revision inherits each one it does not give). */
export const SurfaceLoadingFields = {
  /** `eager` (default): every tool in every request. `deferred`: only `always_loaded` up front; the rest found by search. */
  loading: z.enum(['eager', 'deferred']).optional(),
  /** Action (or multiplexed tool) ids that stay loaded on a deferred surface. */
  always_loaded: z.array(z.string()).optional(),
  search: z
    .strictObject({
      /** Tools one emulated `search_tools` call returns (native searches choose their own count). */
      top_k: z.number().int().positive().max(100).optional(),
      /** Which Anthropic tool search tool a native request carries. */
      anthropic: z.enum(ANTHROPIC_SEARCH_VARIANTS).optional(),
      /** How OpenAI Responses' tool search is sent: namespaces of dotted names (default) or flat functions. */
      openai: z.enum(OPENAI_SEARCH_GROUPINGS).optional(),
      /** Descriptions of the OpenAI namespaces, by namespace name (the model sees them before it searches). */
      namespaces: z.record(z.string(), z.string().min(1)).optional(),
    })
    .optional(),
};

/** A resolved surface's loading mode; absent (or null) on an eager surface. */
export const SurfaceLoading = z.object({
  mode: z.literal('deferred'),
  /** Exposed names of the tools sent in every request. */
  always_loaded: z.array(z.string()),
  top_k: z.number().int().positive(),
  anthropic: z.enum(ANTHROPIC_SEARCH_VARIANTS),
  /** Set only when the surface says so (absent: `namespaces`), so surfaces that do not keep their hash. */
  openai: z.enum(OPENAI_SEARCH_GROUPINGS).optional(),
  /** Namespace descriptions the surface gives; absent when it gives none. */
  namespaces: z.record(z.string(), z.string()).optional(),
});
export type SurfaceLoading = z.infer<typeof SurfaceLoading>;

/** What one search returned: each found tool's exposed name and the actions it can mean. */
export const SearchHit = z.object({ tool: z.string(), actions: z.array(z.string()) });
export type SearchHit = z.infer<typeof SearchHit>;

/** One tool search of a trial, native or emulated. */
export const SearchRecord = z.object({
  turn: z.number().int().nonnegative(),
  /** The call id the model gave the search. */
  id: z.string(),
  /** The raw arguments (emulated: `{"query": …}`; native: the provider's search input). */
  arguments: z.string(),
  /** Found tools, best first. */
  results: z.array(SearchHit),
  /** Set when the search could not run (bad arguments); fed back to the model as an error. */
  error: z.string().nullable().default(null),
});
export type SearchRecord = z.infer<typeof SearchRecord>;

/** A deferred trial's loading facts, counted with the same tokenizer as `schema_tokens` (o200k). */
export const LoadingRecord = z.object({
  /** `native`: the provider's own tool search; `emulated`: toolmark's `search_tools` meta-tool (BM25). */
  via: z.enum(['native', 'emulated']),
  /** Schema tokens of the first request: the always-loaded tools plus the search tool. */
  initial_schema_tokens: z.number().int().nonnegative(),
  /** Schema tokens of each request, by turn (initial + whatever was loaded before it). */
  turn_schema_tokens: z.array(z.number().int().nonnegative()),
  /** Each tool the first time a search loaded it, with its own schema tokens. */
  loaded: z.array(z.object({ turn: z.number().int().nonnegative(), tool: z.string(), tokens: z.number().int() })),
  searches: z.array(SearchRecord),
  /** Actions of the always-loaded tools: a task that needs only these needs no search. */
  always_loaded_actions: z.array(z.string()),
  top_k: z.number().int().positive(),
});
export type LoadingRecord = z.infer<typeof LoadingRecord>;

/** One search a provider ran on its own side (native tool search), as the turn reports it. */
export const NativeToolSearch = z.object({
  id: z.string(),
  /** The search input as JSON text (Anthropic: `{"query": …}`; OpenAI: the tool_search_call arguments). */
  arguments: z.string(),
  /** Exposed names of the tools it loaded, best first. */
  results: z.array(z.string()),
});
export type NativeToolSearch = z.infer<typeof NativeToolSearch>;

/** One OpenAI namespace of a native request: the tools named `<name>.<rest>` go inside it as `<rest>`. */
export const SearchNamespace = z.object({ name: z.string(), description: z.string() });
export type SearchNamespace = z.infer<typeof SearchNamespace>;

/**
 * On a request: the provider runs the search itself over the tools marked
 * `defer_loading`. The runner sets only its provider's fields: `anthropic`
 * (which search tool) for the Messages API, `openai` (and the namespaces
 * it groups into) for the Responses API.
 */
export const NativeToolSearchOption = z.object({
  anthropic: z.enum(ANTHROPIC_SEARCH_VARIANTS).optional(),
  openai: z.enum(OPENAI_SEARCH_GROUPINGS).optional(),
  /** OpenAI, grouped: the namespaces, in first-appearance order of the payload. */
  namespaces: z.array(SearchNamespace).optional(),
});
export type NativeToolSearchOption = z.infer<typeof NativeToolSearchOption>;
