/**
 * A fake of llama.cpp's `llama-server` OpenAI-compatible endpoint, as it
 * behaved in a live run (issue 21): it parses the conversation history and
 * answers 500 "Failed to parse tool call arguments as JSON" when an earlier
 * call's arguments are not JSON; it cannot compile a schema `pattern` into a
 * grammar and answers 500 to any request whose tools carry one; it stops at
 * `max_tokens` with finish_reason "length". Its replies have the shapes the
 * real server sends: empty `content` beside tool calls, 32-character call
 * ids, `timings` and other extra fields. The model's behaviour is a script.
 */
import type { FakeHandler, FakeReply, RecordedRequest } from './fake-server.ts';

/** What the scripted model says for one request (by its task's first user message and its turn). */
export type LlamaMove =
  | { text: string; finish?: 'stop' | 'length' }
  | { call: { name: string; arguments: string }; finish?: 'tool_calls' | 'length' };

export const PARSE_ERROR =
  'Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal';
export const PATTERN_ERROR = 'JSON schema conversion failed:\nUnsupported pattern syntax: ^T-\\d{3}$';

function hasPattern(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasPattern);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([key, inner]) => (key === 'pattern' && typeof inner === 'string') || hasPattern(inner),
  );
}

function serverError(message: string): FakeReply {
  // llama-server's error body: an OpenAI-style `error` with a numeric code and a type.
  return { status: 500, body: { error: { code: 500, message, type: 'server_error' } } };
}

/** The request's first user message and its turn (assistant messages so far). */
export function llamaTurn(request: RecordedRequest): { user: string; turn: number } {
  const messages = (request.body?.messages ?? []) as { role: string; content?: unknown }[];
  const user = messages.find((message) => message.role === 'user');
  return {
    user: typeof user?.content === 'string' ? user.content : '',
    turn: messages.filter((message) => message.role === 'assistant').length,
  };
}

let ids = 0;
const callId = () => (ids++).toString(16).padStart(32, 'a');

/** A handler that acts as llama-server in front of `script`. */
export function llamaServer(script: (request: RecordedRequest) => LlamaMove): FakeHandler {
  return (request) => {
    const body = request.body ?? {};
    if (hasPattern(body.tools)) return serverError(PATTERN_ERROR);
    for (const message of body.messages ?? []) {
      for (const call of message.tool_calls ?? []) {
        try {
          JSON.parse(call.function.arguments);
        } catch {
          return serverError(PARSE_ERROR);
        }
      }
    }
    const move = script(request);
    const cap = body.max_tokens ?? body.max_completion_tokens;
    const message =
      'call' in move
        ? { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: move.call, id: callId() }] }
        : { role: 'assistant', content: move.text };
    const finish = move.finish ?? ('call' in move ? 'tool_calls' : 'stop');
    const completionTokens = finish === 'length' ? (cap ?? 4096) : 12;
    return {
      body: {
        choices: [{ finish_reason: finish, index: 0, message }],
        created: 1764600000,
        model: body.model,
        system_fingerprint: 'b6200-fake',
        object: 'chat.completion',
        usage: { completion_tokens: completionTokens, prompt_tokens: 310, total_tokens: 310 + completionTokens },
        id: 'chatcmpl-fake',
        timings: { prompt_n: 310, prompt_ms: 40.1, predicted_n: completionTokens, predicted_ms: 900.5 },
      },
    };
  };
}
