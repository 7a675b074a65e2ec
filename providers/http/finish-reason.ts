/**
 * Normalised finish reasons shared by the adapters: `stop`, `tool_calls`,
 * `length`, `content_filter`; anything else passes through as the provider
 * wrote it so nothing is hidden.
 */
export function normaliseFinishReason(raw: string | null | undefined, hasToolCalls: boolean): string {
  switch (raw) {
    case null:
    case undefined:
    case '':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'stop':
    case 'end_turn':
    case 'stop_sequence':
    case 'completed':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
    case 'max_output_tokens':
      return 'length';
    case 'content_filter':
    case 'refusal':
      return 'content_filter';
    default:
      return raw;
  }
}
