import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSchema } from '../../registry/schema/index.ts';
import { toolError, type Json, type ToolError } from '../../spec/index.ts';

/** The text parts of a result's content, joined. */
export function contentText(result: CallToolResult): string {
  return result.content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

/**
 * What a `tools/call` result means for the registry: an `isError` result is
 * the tool's own structured error (the model sees it and may recover);
 * otherwise the output is `structuredContent` (checked against the tool's
 * `outputSchema`) or, without it, the content — its text when all of it is
 * text, else the content parts as the server sent them.
 */
export function interpretResult(
  tool: string,
  result: CallToolResult,
  outputSchema: ToolSchema | null,
): { output: Json } | { error: ToolError } {
  if (result.isError) {
    const text = contentText(result);
    return {
      error: {
        ...toolError('tool_failed', text || `${tool} reported an error.`, { tool, content: text }),
        category: 'dependency',
      },
    };
  }
  if (result.structuredContent !== undefined) {
    if (outputSchema) {
      const checked = outputSchema.validate(result.structuredContent);
      if (!checked.ok)
        return {
          error: toolError(
            'invalid_tool_output',
            `${tool} returned structuredContent that does not match its outputSchema.`,
            { tool, violations: checked.violations },
          ),
        };
    }
    return { output: result.structuredContent as Json };
  }
  if (outputSchema)
    return {
      error: toolError('invalid_tool_output', `${tool} declares an outputSchema but returned no structuredContent.`, {
        tool,
      }),
    };
  const allText = result.content.every((part) => part.type === 'text');
  return { output: allText ? contentText(result) : (result.content as Json) };
}
