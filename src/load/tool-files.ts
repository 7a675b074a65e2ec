import { resolve } from 'node:path';
import type { z } from 'zod';
import {
  AnthropicTool,
  McpTool,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ToolFileFormat,
  type ConfigIssue,
  type ImportedTool,
  type JsonSchema,
} from '../spec/index.ts';
import { readSourceFile, type FieldPath, type SourceFile } from './source-file.ts';
import { zodIssuesToConfigIssues } from './zod-issues.ts';

/** A tools file read and normalised: one list whatever the format. */
export interface ToolFile {
  format: ToolFileFormat;
  tools: ImportedTool[];
  /** Path as shown to the user. */
  file: string;
}

type Entry = Record<string, unknown>;

function isObject(value: unknown): value is Entry {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Where the tool list sits in a parsed file: a bare array, `{tools: [...]}`
 * (a request body or an MCP result), or a JSON-RPC response
 * `{result: {tools: [...]}}` as saved from an MCP session.
 */
function locateList(value: unknown): { list: unknown[]; path: FieldPath } | null {
  if (Array.isArray(value)) return { list: value, path: [] };
  if (isObject(value) && Array.isArray(value.tools)) return { list: value.tools, path: ['tools'] };
  if (isObject(value) && isObject(value.result) && Array.isArray(value.result.tools))
    return { list: value.result.tools, path: ['result', 'tools'] };
  return null;
}

/** The format of one entry, judged by the field only that format has. */
function entryFormat(entry: unknown): ToolFileFormat | null {
  if (!isObject(entry)) return null;
  if (entry.type === 'function' && isObject(entry.function)) return 'openai';
  if (entry.type === 'function') return 'openai-responses';
  if ('input_schema' in entry) return 'anthropic';
  if ('inputSchema' in entry) return 'mcp';
  return null;
}

const ENTRY_SCHEMAS: Record<ToolFileFormat, z.ZodType> = {
  openai: OpenAIChatTool,
  'openai-responses': OpenAIResponsesTool,
  anthropic: AnthropicTool,
  mcp: McpTool,
};

/** `parameters` may be left out (OpenAI) for a tool without arguments: the schema it stands for. */
const NO_PARAMETERS: JsonSchema = { type: 'object', properties: {} };

/** One parsed entry in the normalised shape. Fields the file leaves out stay out. */
function normalise(format: ToolFileFormat, entry: Entry): ImportedTool {
  const tool: ImportedTool = { name: '', inputSchema: {} };
  const set = <K extends keyof ImportedTool>(key: K, value: ImportedTool[K] | null | undefined) => {
    if (value !== undefined && value !== null) tool[key] = value;
  };
  switch (format) {
    case 'openai': {
      const fn = entry.function as Entry;
      tool.name = fn.name as string;
      set('description', fn.description as string | undefined);
      tool.inputSchema = (fn.parameters as JsonSchema | undefined) ?? NO_PARAMETERS;
      set('strict', fn.strict as boolean | null | undefined);
      break;
    }
    case 'openai-responses':
      tool.name = entry.name as string;
      set('description', entry.description as string | null | undefined);
      tool.inputSchema = (entry.parameters as JsonSchema | null | undefined) ?? NO_PARAMETERS;
      set('strict', entry.strict as boolean | null | undefined);
      break;
    case 'anthropic':
      tool.name = entry.name as string;
      set('description', entry.description as string | undefined);
      tool.inputSchema = entry.input_schema as JsonSchema;
      set('strict', entry.strict as boolean | undefined);
      break;
    case 'mcp':
      tool.name = entry.name as string;
      set('title', entry.title as string | undefined);
      set('description', entry.description as string | undefined);
      tool.inputSchema = entry.inputSchema as JsonSchema;
      set('outputSchema', entry.outputSchema as JsonSchema | undefined);
      set('annotations', entry.annotations as ImportedTool['annotations']);
      break;
  }
  return tool;
}

/**
 * Normalise the parsed value of a tools file: an OpenAI (Chat or Responses)
 * `tools` array, an Anthropic `tools` array, or a saved MCP `tools/list`
 * result. The format is detected from the entries unless `format` is given;
 * mixed formats, malformed entries and duplicate names are located issues
 * (file:line, field) and the result is then null.
 */
export function parseToolFile(
  source: SourceFile,
  issues: ConfigIssue[],
  options: { format?: ToolFileFormat } = {},
): ToolFile | null {
  const value = source.value();
  const located = locateList(value);
  if (!located) {
    issues.push(
      source.issue([], {
        message: 'not a tools file',
        expected: 'a JSON array of tools (OpenAI or Anthropic), {"tools": [...]}, or a saved MCP tools/list result',
      }),
    );
    return null;
  }
  const { list, path } = located;
  const detected = list.map(entryFormat);
  const format = options.format ?? detected.find((found) => found !== null) ?? null;
  if (format === null) {
    if (list.length === 0) return { format: options.format ?? 'openai', tools: [], file: source.display };
    issues.push(
      source.issue([...path, 0], {
        message: 'cannot tell the format of this tool',
        expected:
          'an OpenAI tool ({"type": "function", ...}), an Anthropic tool (with input_schema) or an MCP tool (with inputSchema)',
      }),
    );
    return null;
  }
  const before = issues.length;
  const tools: ImportedTool[] = [];
  const seen = new Map<string, number>();
  list.forEach((entry, index) => {
    const at = [...path, index];
    if (detected[index] !== null && detected[index] !== format) {
      issues.push(
        source.issue(at, {
          message: `this tool is in the ${detected[index]} format, but the file is ${format}`,
          expected: `every tool in one format (${format})`,
        }),
      );
      return;
    }
    const parsed = ENTRY_SCHEMAS[format].safeParse(entry);
    if (!parsed.success) {
      issues.push(...zodIssuesToConfigIssues(source, ENTRY_SCHEMAS[format] as never, parsed.error, entry, at));
      return;
    }
    const tool = normalise(format, entry as Entry);
    const earlier = seen.get(tool.name);
    if (earlier !== undefined) {
      issues.push(
        source.issue([...at, ...(format === 'openai' ? ['function'] : []), 'name'], {
          message: `duplicate tool name "${tool.name}" (also at ${[...path, earlier].join('.')})`,
          expected: 'tool names unique within a file',
        }),
      );
      return;
    }
    seen.set(tool.name, index);
    tools.push(tool);
  });
  if (issues.length > before) return null;
  return { format, tools, file: source.display };
}

/** Read and normalise a tools file (JSON or YAML) from disk; see `parseToolFile`. */
export async function readToolFile(
  path: string,
  root: string,
  issues: ConfigIssue[],
  options: { format?: ToolFileFormat } = {},
): Promise<ToolFile | null> {
  let source: SourceFile | null;
  try {
    source = await readSourceFile(resolve(root, path), root, issues);
  } catch (error) {
    issues.push({
      file: path,
      message: `cannot read the tools file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    });
    return null;
  }
  return source ? parseToolFile(source, issues, options) : null;
}

export { ToolFileFormat };
