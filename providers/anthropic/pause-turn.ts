import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  Usage,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { RetryNote, RetryOutcome } from '../http/retry.ts';

/**
 * Continuations of one paused turn before toolmark gives up on it. The API
 * pauses a server-side tool loop (tool search) after its own iteration
 * limit; a turn that still pauses after this many continuations is scored
 * as it stands, with a warning, rather than looping without end.
 */
export const ANTHROPIC_PAUSE_CONTINUATIONS = 4;

/** One model turn after its continuations: the blocks of every response in order, usage and latency summed. */
export interface SettledMessage {
  message: Message;
  latencyMs: number;
  retries: RetryNote[];
  warnings: string[];
}

function addUsage(total: Usage, more: Usage): Usage {
  const sum = (a: number | null | undefined, b: number | null | undefined) =>
    a === null && b === null ? null : (a ?? 0) + (b ?? 0);
  return {
    ...total,
    input_tokens: (total.input_tokens ?? 0) + (more.input_tokens ?? 0),
    output_tokens: (total.output_tokens ?? 0) + (more.output_tokens ?? 0),
    cache_creation_input_tokens: sum(total.cache_creation_input_tokens, more.cache_creation_input_tokens),
    cache_read_input_tokens: sum(total.cache_read_input_tokens, more.cache_read_input_tokens),
  };
}

/**
 * Send `body`; while the answer stops with `pause_turn` (a server tool loop
 * paused), send it again with the assistant content so far appended
 * unchanged, as the Messages API asks, up to `limit` continuations. The
 * result is one message: every response's blocks in order (server tool
 * blocks kept, so the history re-sends them), the last stop reason, usage
 * and latency summed over every request.
 */
export async function createUntilSettled(
  body: MessageCreateParamsNonStreaming,
  send: (body: MessageCreateParamsNonStreaming) => Promise<RetryOutcome<Message>>,
  check: (value: Message) => void,
  limit: number = ANTHROPIC_PAUSE_CONTINUATIONS,
): Promise<SettledMessage> {
  const first = await send(body);
  check(first.value);
  let message = first.value;
  let latencyMs = first.latencyMs;
  const retries = [...first.retries];
  let continuations = 0;
  while (message.stop_reason === 'pause_turn' && continuations < limit) {
    continuations += 1;
    const next = await send({
      ...body,
      // The paused content goes back as the assistant's turn; the API continues it.
      messages: [...body.messages, { role: 'assistant', content: message.content as ContentBlockParam[] }],
    });
    check(next.value);
    latencyMs += next.latencyMs;
    retries.push(...next.retries);
    message = {
      ...next.value,
      content: [...(message.content ?? []), ...(next.value.content ?? [])],
      usage: message.usage && next.value.usage ? addUsage(message.usage, next.value.usage) : next.value.usage,
    };
  }
  const warnings =
    message.stop_reason === 'pause_turn'
      ? [
          `the server tool loop still paused after ${limit} continuations (stop_reason pause_turn); the turn is scored as it stands`,
        ]
      : [];
  return { message, latencyMs, retries, warnings };
}
