import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
  ToolChoice,
  ToolSearchToolBm25_20251119,
  ToolSearchToolRegex20251119,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { NativeToolSearch, NativeToolSearchOption } from '../../src/spec/surface-loading.ts';
import type { ModelRequest, ModelTurn, ToolCallProposal, ToolDefinition } from '../../src/spec/model.ts';
import type { WireNames } from '../http/wire-names.ts';
import { normaliseFinishReason } from '../http/finish-reason.ts';
import { historyArguments } from '../http/history-arguments.ts';

import { VENDOR_DEFAULT_MAX_TOKENS } from '../http/max-tokens.ts';

/** Messages API requires an output cap; used when the task's settings give none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = VENDOR_DEFAULT_MAX_TOKENS;

/** Tools in the Messages wire shape (`input_schema`; `strict` only when asked for). */
export function toAnthropicTools(tools: readonly ToolDefinition[], names: WireNames): Tool[] {
  return tools.map((tool) => ({
    name: names.encode(tool.name),
    description: tool.description,
    input_schema: tool.parameters as Tool['input_schema'],
    ...(tool.strict ? { strict: true } : {}),
    // Deferred loading: kept out of the context until the tool search tool returns a reference to it.
    ...(tool.defer_loading ? { defer_loading: true } : {}),
  }));
}

/** The Messages API tool search tool for a deferred request (issue 19): BM25 (natural language) or regex. */
export function anthropicSearchTool(
  option: NativeToolSearchOption,
): ToolSearchToolBm25_20251119 | ToolSearchToolRegex20251119 {
  return option.anthropic === 'regex'
    ? { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }
    : { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
}

/** A past native search as the two blocks the API wrote: the server tool use and its result with tool references. */
function searchBlocks(
  search: NativeToolSearch,
  option: NativeToolSearchOption | undefined,
  names: WireNames,
): ContentBlockParam[] {
  let input: unknown;
  try {
    input = JSON.parse(search.arguments);
  } catch {
    input = { query: search.arguments };
  }
  return [
    { type: 'server_tool_use', id: search.id, name: anthropicSearchTool(option ?? { anthropic: 'bm25' }).name, input },
    {
      type: 'tool_search_tool_result',
      tool_use_id: search.id,
      content: {
        type: 'tool_search_tool_search_result',
        tool_references: search.results.map((name) => ({
          type: 'tool_reference' as const,
          tool_name: names.encode(name),
        })),
      },
    },
  ];
}

const TOOL_CHOICE: Record<ModelRequest['tool_choice'], ToolChoice> = {
  auto: { type: 'auto' },
  required: { type: 'any' },
  none: { type: 'none' },
};

/** Append blocks to the conversation, merging into the previous message when the role repeats (the API wants alternation). */
function push(messages: MessageParam[], role: 'user' | 'assistant', blocks: ContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === role && Array.isArray(last.content)) {
    last.content.push(...blocks);
    return;
  }
  messages.push({ role, content: blocks });
}

/** Map the normalised request to a Messages API body. */
export function toMessagesRequest(
  request: ModelRequest,
  names: WireNames,
  defaultMaxTokens: number = ANTHROPIC_DEFAULT_MAX_TOKENS,
): { body: MessageCreateParamsNonStreaming; warnings: string[] } {
  const warnings: string[] = [];
  const system: string[] = request.system !== null ? [request.system] : [];
  const messages: MessageParam[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        // Only a top-level system prompt exists here; a mid-conversation one joins it.
        if (messages.length > 0)
          warnings.push('a system message inside the conversation was moved to the system prompt');
        system.push(message.content);
        break;
      case 'user':
        push(messages, 'user', [{ type: 'text', text: message.content }]);
        break;
      case 'assistant': {
        const blocks: ContentBlockParam[] = [];
        // The searches come first, as in the response: the calls after them use the tools they loaded.
        for (const search of message.tool_searches ?? [])
          blocks.push(...searchBlocks(search, request.tool_search, names));
        if (message.content !== null && message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls) {
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: names.encode(call.name),
            input: historyArguments(call, warnings).value,
          });
        }
        push(messages, 'assistant', blocks);
        break;
      }
      case 'tool':
        // Consecutive results merge into one user message, as the API requires.
        push(messages, 'user', [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id,
            content: message.content,
            ...(message.is_error ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  const body: MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: request.settings.max_tokens ?? defaultMaxTokens,
    messages,
  };
  if (system.length > 0) body.system = system.join('\n\n');
  if (request.tools.length > 0) {
    body.tools = request.tool_search
      ? [anthropicSearchTool(request.tool_search), ...toAnthropicTools(request.tools, names)]
      : toAnthropicTools(request.tools, names);
    body.tool_choice = TOOL_CHOICE[request.tool_choice];
  } else if (request.tool_choice === 'required') {
    warnings.push('tool_choice "required" with no tools; not sent');
  }
  // The Messages API of SDK 1.x has dropped sampling controls.
  if (request.settings.temperature !== undefined)
    warnings.push('the Messages API (SDK 1.x) has no temperature; settings.temperature ignored');
  if (request.settings.seed !== undefined) warnings.push('the Messages API has no seed; settings.seed ignored');
  return { body, warnings };
}

/** Map a Messages API response back to a normalised turn. */
export function fromMessage(message: Message, names: WireNames): Omit<ModelTurn, 'latency_ms'> {
  const warnings: string[] = [];
  const texts: string[] = [];
  const toolCalls: ToolCallProposal[] = [];
  const searches: NativeToolSearch[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'server_tool_use' && block.name.startsWith('tool_search_tool_')) {
      searches.push({ id: block.id, arguments: JSON.stringify(block.input ?? {}), results: [] });
    } else if (block.type === 'tool_search_tool_result') {
      const search = searches.find((candidate) => candidate.id === block.tool_use_id);
      if (block.content.type === 'tool_search_tool_search_result') {
        if (search)
          search.results = block.content.tool_references.map((reference) => names.decode(reference.tool_name));
      } else warnings.push(`tool search failed: ${block.content.error_code}`);
    } else if (block.type === 'tool_use') {
      // The wire gives an object; the proposal keeps its JSON text (serialised once, never re-parsed).
      toolCalls.push({ id: block.id, name: names.decode(block.name), arguments: JSON.stringify(block.input ?? {}) });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      warnings.push(`ignored a content block of type "${block.type}"`);
    }
  }
  if (message.stop_reason === 'max_tokens') warnings.push('output was cut at the token limit');
  if (message.stop_reason === 'refusal') warnings.push('the model refused');
  const usage = message.usage
    ? {
        // Cache writes and reads are input too; counting them keeps totals honest if caching is ever on.
        input_tokens:
          (message.usage.input_tokens ?? 0) +
          (message.usage.cache_creation_input_tokens ?? 0) +
          (message.usage.cache_read_input_tokens ?? 0),
        output_tokens: message.usage.output_tokens ?? 0,
      }
    : (warnings.push('response carried no usage; tokens counted as 0'), { input_tokens: 0, output_tokens: 0 });
  return {
    text: texts.length > 0 ? texts.join('') : null,
    tool_calls: toolCalls,
    usage,
    finish_reason: normaliseFinishReason(message.stop_reason, toolCalls.length > 0),
    warnings,
    ...(searches.length > 0 ? { tool_searches: searches } : {}),
  };
}
