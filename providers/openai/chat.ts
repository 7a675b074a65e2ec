import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ModelRequest, ModelTurn, ToolCallProposal, ToolDefinition } from '../../src/spec/model.ts';
import type { WireNames } from '../http/wire-names.ts';
import { normaliseFinishReason } from '../http/finish-reason.ts';
import { historyArguments } from '../http/history-arguments.ts';

/** Which field carries the output-token cap: OpenAI wants the new one, many compatible servers only know the old. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** Tools in the Chat Completions wire shape: exactly what the adapter sends. */
export function toChatTools(tools: readonly ToolDefinition[], names: WireNames): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: names.encode(tool.name),
      description: tool.description,
      parameters: tool.parameters as Record<string, unknown>,
      // Sent only when asked for: Chat's default is non-strict, and some compatible servers reject the field.
      ...(tool.strict ? { strict: true } : {}),
    },
  }));
}

/** Map the normalised request to a Chat Completions body. Returns warnings for anything that had to be adapted. */
export function toChatRequest(
  request: ModelRequest,
  names: WireNames,
  maxTokensField: MaxTokensField,
  defaultMaxTokens?: number,
): { body: ChatCompletionCreateParamsNonStreaming; warnings: string[] } {
  const warnings: string[] = [];
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== null) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        messages.push({ role: message.role, content: message.content });
        break;
      case 'assistant':
        messages.push({
          role: 'assistant',
          // OpenAI accepts a null content only next to tool calls.
          content: message.content ?? (message.tool_calls.length > 0 ? null : ''),
          ...(message.tool_calls.length > 0
            ? {
                tool_calls: message.tool_calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  // Valid JSON as the model wrote it; malformed arguments go back as {} (history-arguments.ts).
                  function: { name: names.encode(call.name), arguments: historyArguments(call, warnings).text },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        // Chat has no error flag on tool messages: the structured error travels in the content.
        messages.push({ role: 'tool', tool_call_id: message.tool_call_id, content: message.content });
        break;
    }
  }
  const body: ChatCompletionCreateParamsNonStreaming = { model: request.model, messages };
  if (request.tools.length > 0) {
    body.tools = toChatTools(request.tools, names);
    body.tool_choice = request.tool_choice;
  } else if (request.tool_choice === 'required') {
    warnings.push('tool_choice "required" with no tools; not sent');
  }
  const settings = request.settings;
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  const maxTokens = settings.max_tokens ?? defaultMaxTokens;
  if (maxTokens !== undefined) body[maxTokensField] = maxTokens;
  if (settings.seed !== undefined) body.seed = settings.seed;
  return { body, warnings };
}

/** Map a Chat Completions response back to a normalised turn (latency and retry warnings are added by the caller). */
export function fromChatResponse(response: ChatCompletion, names: WireNames): Omit<ModelTurn, 'latency_ms'> {
  const warnings: string[] = [];
  const choice = response.choices?.[0];
  if (!choice) {
    return {
      text: null,
      tool_calls: [],
      usage: readUsage(response, warnings),
      finish_reason: 'error',
      warnings: [...warnings, 'response had no choices'],
    };
  }
  const message = choice.message;
  const toolCalls: ToolCallProposal[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type === 'function') {
      // `arguments` stays the raw string, valid JSON or not: scoring judges it, not the adapter.
      toolCalls.push({ id: call.id, name: names.decode(call.function.name), arguments: call.function.arguments ?? '' });
    } else {
      warnings.push(`ignored a tool call of type "${(call as { type: string }).type}"`);
    }
  }
  if (message.refusal) warnings.push(`refusal: ${message.refusal}`);
  if (choice.finish_reason === 'length') warnings.push('output was cut at the token limit');
  return {
    text: message.content ?? null,
    tool_calls: toolCalls,
    usage: readUsage(response, warnings),
    finish_reason: normaliseFinishReason(choice.finish_reason, toolCalls.length > 0),
    warnings,
  };
}

function readUsage(response: ChatCompletion, warnings: string[]): ModelTurn['usage'] {
  if (!response.usage) {
    warnings.push('response carried no usage; tokens counted as 0');
    return { input_tokens: 0, output_tokens: 0 };
  }
  return { input_tokens: response.usage.prompt_tokens ?? 0, output_tokens: response.usage.completion_tokens ?? 0 };
}
