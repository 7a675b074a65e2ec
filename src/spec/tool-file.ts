import { z } from 'zod';
import { JsonSchema } from './json.ts';

/**
 * The formats a tools file can be in: what teams already ship.
 * - `openai`: a Chat Completions `tools` array (`{type: "function", function: {name, description, parameters, strict?}}`)
 * - `openai-responses`: a Responses API `tools` array (`{type: "function", name, description, parameters, strict}`)
 * - `anthropic`: a Messages API `tools` array (`{name, description, input_schema}`)
 * - `mcp`: a saved MCP `tools/list` result (`{tools: [{name, title?, description?, inputSchema, outputSchema?, annotations?}]}`)
 */
export const ToolFileFormat = z.enum(['openai', 'openai-responses', 'anthropic', 'mcp']);
export type ToolFileFormat = z.infer<typeof ToolFileFormat>;

/** MCP tool annotations: hints from the server, never a contract (SPEC §4). */
export const ToolAnnotations = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotations>;

/**
 * One tool as a tools file or an MCP server states it, normalised across the
 * formats. Schemas are kept exactly as written (same keys, same order), so
 * an import can be exported back to the same JSON.
 */
export const ImportedTool = z.object({
  name: z.string().min(1),
  /** MCP only: a display title. */
  title: z.string().optional(),
  /** Absent when the file gives none (kept apart from an empty string, for the round trip). */
  description: z.string().optional(),
  inputSchema: JsonSchema,
  /** MCP only: the schema of `structuredContent`. */
  outputSchema: JsonSchema.optional(),
  /** MCP only. */
  annotations: ToolAnnotations.optional(),
  /** OpenAI only: the `strict` flag as the file gives it. */
  strict: z.boolean().optional(),
});
export type ImportedTool = z.infer<typeof ImportedTool>;

const FunctionSchema = z.looseObject({ type: z.string().optional() });

/** One entry of an OpenAI Chat Completions `tools` array. */
export const OpenAIChatTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: FunctionSchema.optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

/** One entry of an OpenAI Responses API `tools` array. */
export const OpenAIResponsesTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  parameters: FunctionSchema.nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

/** One entry of an Anthropic Messages API `tools` array (custom tools). */
export const AnthropicTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: FunctionSchema,
  type: z.literal('custom').optional(),
  strict: z.boolean().optional(),
});

/** One tool of an MCP `tools/list` result. */
export const McpTool = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: FunctionSchema,
  outputSchema: FunctionSchema.optional(),
  annotations: ToolAnnotations.optional(),
});
export type McpTool = z.infer<typeof McpTool>;

/** A saved MCP `tools/list` result (pagination already followed). */
export const McpToolsList = z.looseObject({ tools: z.array(McpTool) });
export type McpToolsList = z.infer<typeof McpToolsList>;
