import type { ToolCallProposal } from '../../src/spec/model.ts';

/** What is sent back, on every wire, in place of arguments that are not a JSON object. */
export const MALFORMED_ARGUMENTS_SENT = '{}';

/**
 * The arguments of an earlier call as they go back to the server in the
 * conversation history: a JSON object, always. A model's malformed
 * arguments (cut at the token limit: `{`) sent back raw make servers that
 * parse the history refuse the whole request — llama.cpp's llama-server
 * answers 500 "Failed to parse tool call arguments as JSON", Anthropic
 * requires an object — so the trial would end as a provider failure and
 * vanish from the scores. `{}` is sent instead (with a warning); the model
 * still learns what went wrong from the tool result that follows, which
 * carries the structured `invalid_arguments` error. The trial record keeps
 * the raw string the model wrote; only the wire copy changes.
 */
export function historyArguments(
  call: ToolCallProposal,
  warnings: string[],
): { text: string; value: Record<string, unknown> } {
  try {
    const value: unknown = JSON.parse(call.arguments);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return { text: call.arguments, value: value as Record<string, unknown> };
  } catch {
    // fall through
  }
  warnings.push(
    `arguments of call ${call.id} are not a JSON object; sent back as ${MALFORMED_ARGUMENTS_SENT} in the history`,
  );
  return { text: MALFORMED_ARGUMENTS_SENT, value: {} };
}
