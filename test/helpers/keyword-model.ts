/**
 * A tiny deterministic "model" behind a fake HTTP server (test/providers/
 * fake-server.ts), answering in the OpenAI Chat Completions or the Anthropic
 * Messages wire format, so a live-provider run (a sweep with `--record`) can
 * be driven through the real SDKs on 127.0.0.1. It decides from the request
 * alone, like a stateless model:
 *
 * - after the result of a call that was not a search: a text answer;
 * - offered `search_tools` and not searched yet: searches with the user's
 *   words (ids left out);
 * - else: calls the offered tool whose name and description share the most
 *   words with the user's message (first in payload order on a tie), with
 *   the ticket id the user named; no shared word: answers in text.
 */
import type { FakeHandler, FakeReply, RecordedRequest } from '../providers/fake-server.ts';

interface Decision {
  text: string | null;
  call: { name: string; arguments: Record<string, unknown> } | null;
}

interface Conversation {
  user: string;
  tools: { name: string; description: string }[];
  /** Names of the calls the assistant made so far, in order. */
  calls: string[];
  /** The last message is a tool result. */
  afterResult: boolean;
}

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 2),
  );

function decide(conversation: Conversation): Decision {
  const searched = conversation.calls.includes('search_tools');
  if (conversation.afterResult && conversation.calls.at(-1) !== 'search_tools')
    return { text: 'Here is what I found.', call: null };
  const userWords = words(conversation.user.replace(/\bT-\d+\b/g, ' '));
  if (!searched && conversation.tools.some((tool) => tool.name === 'search_tools'))
    return { text: null, call: { name: 'search_tools', arguments: { query: [...userWords].join(' ') } } };
  let best: { name: string; score: number } | null = null;
  for (const tool of conversation.tools) {
    if (tool.name === 'search_tools') continue;
    const toolWords = words(`${tool.name.replace(/_/g, ' ')} ${tool.description}`);
    const score = [...userWords].filter((word) => toolWords.has(word)).length;
    if (score > 0 && (best === null || score > best.score)) best = { name: tool.name, score };
  }
  if (!best) return { text: 'I have no tool for that.', call: null };
  const ticket = /\bT-\d+\b/.exec(conversation.user)?.[0];
  return { text: null, call: { name: best.name, arguments: ticket ? { ticket_id: ticket } : {} } };
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((block) => (block?.type === 'text' ? String(block.text) : '')).join('\n')
      : '';

function chatConversation(body: any): Conversation {
  const messages: any[] = body.messages ?? [];
  return {
    user: textOf(messages.find((message) => message.role === 'user')?.content),
    tools: (body.tools ?? []).map((tool: any) => ({
      name: tool.function.name,
      description: tool.function.description ?? '',
    })),
    calls: messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call: any) => call.function.name) : [],
    ),
    afterResult: messages.at(-1)?.role === 'tool',
  };
}

function messagesConversation(body: any): Conversation {
  const messages: any[] = body.messages ?? [];
  const last = messages.at(-1);
  return {
    user: textOf(messages.find((message) => message.role === 'user')?.content),
    tools: (body.tools ?? [])
      .filter((tool: any) => typeof tool.name === 'string')
      .map((tool: any) => ({ name: tool.name, description: tool.description ?? '' })),
    calls: messages.flatMap((message) =>
      message.role === 'assistant' && Array.isArray(message.content)
        ? message.content.filter((block: any) => block.type === 'tool_use').map((block: any) => block.name)
        : [],
    ),
    afterResult: Array.isArray(last?.content) && last.content.some((block: any) => block.type === 'tool_result'),
  };
}

function chatReply(decision: Decision, index: number): unknown {
  const message = decision.call
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${index}`,
            type: 'function',
            function: { name: decision.call.name, arguments: JSON.stringify(decision.call.arguments) },
          },
        ],
      }
    : { role: 'assistant', content: decision.text };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: 0,
    model: 'keyword-model',
    choices: [{ index: 0, finish_reason: decision.call ? 'tool_calls' : 'stop', message }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  };
}

function messagesReply(decision: Decision, index: number): unknown {
  return {
    id: `msg_${index}`,
    type: 'message',
    role: 'assistant',
    model: 'keyword-model',
    content: decision.call
      ? [{ type: 'tool_use', id: `toolu_${index}`, name: decision.call.name, input: decision.call.arguments }]
      : [{ type: 'text', text: decision.text }],
    stop_reason: decision.call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 10 },
  };
}

/** The fake server's handler: Anthropic Messages on `…/messages`, Chat Completions elsewhere. */
export const keywordModel: FakeHandler = (request: RecordedRequest, index: number): FakeReply => {
  if (request.path.endsWith('/messages'))
    return { body: messagesReply(decide(messagesConversation(request.body)), index) };
  return { body: chatReply(decide(chatConversation(request.body)), index) };
};
