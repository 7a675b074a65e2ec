import { z } from 'zod';
import { JsonSchema } from './json.ts';
import { shapeCheck } from './shape-check.ts';
import { NativeToolSearch, NativeToolSearchOption, type NativeSearch } from './surface-loading.ts';

/** One tool call as the model proposed it. `arguments` is the raw string (may be invalid JSON). */
export const ToolCallProposal = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type ToolCallProposal = z.infer<typeof ToolCallProposal>;

/** A tool definition in the normalised payload: exactly what a provider is sent, before wire encoding. */
export const ToolDefinition = z.object({
  name: z.string(),
  description: z.string(),
  parameters: JsonSchema,
  strict: z.boolean().default(false),
  /** Deferred loading, native path: the provider keeps this tool out of the context until its tool search finds it. */
  defer_loading: z.boolean().optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;
/** `ToolDefinition.parse` would accept the value unchanged (every request the runner builds checks its payload). */
export const isToolDefinitionShape = shapeCheck(ToolDefinition);

export const ModelMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallProposal).default([]),
    /** Searches the provider ran itself in this turn (native tool search), re-sent so the history stays valid. */
    tool_searches: z.array(NativeToolSearch).optional(),
  }),
  z.object({
    role: z.literal('tool'),
    tool_call_id: z.string(),
    name: z.string(),
    content: z.string(),
    /** MCP `isError` style: the result is a structured error. */
    is_error: z.boolean().default(false),
  }),
]);
export type ModelMessage = z.infer<typeof ModelMessage>;

export const ModelSettings = z.object({
  temperature: z.number().optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** The normalised request every provider receives (SPEC §6). */
export const ModelRequest = z.object({
  model: z.string(),
  system: z.string().nullable().default(null),
  messages: z.array(ModelMessage),
  tools: z.array(ToolDefinition),
  tool_choice: z.enum(['auto', 'none', 'required']).default('auto'),
  settings: ModelSettings.default({}),
  /** Set on a deferred surface sent natively: the adapter adds its provider's tool search tool. */
  tool_search: NativeToolSearchOption.optional(),
});
export type ModelRequest = z.infer<typeof ModelRequest>;

export const Usage = z.object({
  input_tokens: z.number().int().nonnegative().default(0),
  output_tokens: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof Usage>;

/** The normalised answer of one model turn (SPEC §6). */
export const ModelTurn = z.object({
  text: z.string().nullable(),
  tool_calls: z.array(ToolCallProposal).default([]),
  usage: Usage.default({ input_tokens: 0, output_tokens: 0 }),
  latency_ms: z.number().nonnegative().default(0),
  finish_reason: z.string().default('stop'),
  warnings: z.array(z.string()).default([]),
  /** Tool searches the provider ran on its side in this turn (native deferred loading); absent otherwise. */
  tool_searches: z.array(NativeToolSearch).optional(),
});
export type ModelTurn = z.infer<typeof ModelTurn>;
/** `ModelTurn.parse` would accept the value unchanged (every turn a provider returns is checked). */
export const isModelTurnShape = shapeCheck(ModelTurn);

/** Where a request sits in a run; replay looks cassette turns up by it. */
export const TurnKey = z.object({
  domain: z.string(),
  task: z.string(),
  surface: z.string(),
  trial: z.number().int().nonnegative(),
  turn: z.number().int().nonnegative(),
});
export type TurnKey = z.infer<typeof TurnKey>;

export interface ProposeOptions {
  signal?: AbortSignal;
  /** Position of this request in the run (used by replay and by recorders). */
  key?: TurnKey;
  /** Told of each retried attempt as it happens (the CLI prints them). */
  onRetry?(note: { attempt: number; failure: string; waitedMs: number }): void;
}

/** Why a request cannot be answered without calling the model (replay: missing or stale turn). */
export interface ProviderProblem {
  kind: string;
  message: string;
}

/**
 * A provider adapter: one method (SPEC §6). Everything wire-specific stays
 * inside it. The optional members are declared capabilities: the runner
 * reads them, never probes for methods by name.
 */
export interface Provider {
  /** Stable id for results, e.g. `openai`, `anthropic`, `replay`. */
  readonly id: string;
  /** Model name as reported in results. */
  readonly model: string;
  propose(request: ModelRequest, options?: ProposeOptions): Promise<ModelTurn>;
  /** No live model behind it (replay, scripted): tool time may be simulated, nothing is paid. */
  readonly offline?: boolean;
  /** Where a live provider sends its requests, without credentials (the manifest records it). */
  readonly baseURL?: string;
  /** Its turns are synthetic fixtures, not a real model's behaviour (reports say so). */
  readonly synthetic?: boolean;
  /** Say, without answering, whether a request could be answered (the runner's pre-flight; replay). */
  check?(request: ModelRequest, key: TurnKey): ProviderProblem | null;
  /**
   * The provider's own tool search the adapter speaks: `anthropic` (the
   * Messages API's tool search tool) or `openai` (Responses `tool_search`).
   * A replay of a native recording declares the one recorded. Absent: the
   * runner emulates deferred loading with the `search_tools` meta-tool.
   */
  readonly toolSearch?: NativeSearch;
  /** Input tokens the tool definitions alone cost on `model`, from the provider's own count API. */
  countSchemaTokens?(model: string, tools: readonly ToolDefinition[]): Promise<number>;
}
