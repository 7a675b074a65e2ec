import type {
  FunctionTool,
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  Tool,
} from 'openai/resources/responses/responses';
import type { NativeToolSearch } from '../../src/spec/surface-loading.ts';
import type { ModelRequest, ModelTurn, ToolCallProposal, ToolDefinition } from '../../src/spec/model.ts';
import type { WireNames } from '../http/wire-names.ts';
import { normaliseFinishReason } from '../http/finish-reason.ts';
import { historyArguments } from '../http/history-arguments.ts';

/** Tools in the Responses API wire shape: exactly what the adapter sends. */
export function toResponsesTools(tools: readonly ToolDefinition[], names: WireNames): FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: names.encode(tool.name),
    description: tool.description,
    parameters: tool.parameters as Record<string, unknown>,
    // Always explicit: the Responses API treats an omitted `strict` as true.
    strict: tool.strict,
    // Deferred loading: only name and description are shown until tool_search loads the schema.
    ...(tool.defer_loading ? { defer_loading: true } : {}),
  }));
}

/** A past hosted search re-sent as its two items (stateless: `store: false` keeps nothing server-side). */
function searchItems(search: NativeToolSearch, request: ModelRequest, names: WireNames): ResponseInputItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(search.arguments);
  } catch {
    parsed = search.arguments;
  }
  const loaded = request.tools.filter((tool) => search.results.includes(tool.name));
  return [
    { type: 'tool_search_call', call_id: search.id, arguments: parsed, execution: 'server', status: 'completed' },
    {
      type: 'tool_search_output',
      call_id: search.id,
      execution: 'server',
      status: 'completed',
      tools: toResponsesTools(
        loaded.map(({ defer_loading: _deferred, ...tool }) => tool),
        names,
      ),
    },
  ];
}

/** The names a tool_search_output loaded (functions, and the functions of a loaded namespace). */
function loadedNames(tools: readonly Tool[], names: WireNames): string[] {
  return tools.flatMap((tool) =>
    tool.type === 'function'
      ? [names.decode(tool.name)]
      : tool.type === 'namespace'
        ? tool.tools.map((inner) => names.decode(inner.name))
        : [],
  );
}

/** Map the normalised request to a Responses API body (stateless: `store: false`, full history every turn). */
export function toResponsesRequest(
  request: ModelRequest,
  names: WireNames,
  defaultMaxTokens?: number,
): { body: ResponseCreateParamsNonStreaming; warnings: string[] } {
  const warnings: string[] = [];
  const input: ResponseInputItem[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        input.push({ type: 'message', role: message.role, content: message.content });
        break;
      case 'assistant':
        for (const search of message.tool_searches ?? []) input.push(...searchItems(search, request, names));
        if (message.content !== null && message.content !== '')
          input.push({ type: 'message', role: 'assistant', content: message.content });
        for (const call of message.tool_calls) {
          input.push({
            type: 'function_call',
            call_id: call.id,
            name: names.encode(call.name),
            arguments: historyArguments(call, warnings).text,
          });
        }
        break;
      case 'tool':
        // No error flag on this wire either: the structured error is the output text.
        input.push({ type: 'function_call_output', call_id: message.tool_call_id, output: message.content });
        break;
    }
  }
  const body: ResponseCreateParamsNonStreaming = { model: request.model, input, store: false };
  if (request.system !== null) body.instructions = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tool_search
      ? [{ type: 'tool_search' }, ...toResponsesTools(request.tools, names)]
      : toResponsesTools(request.tools, names);
    body.tool_choice = request.tool_choice;
  } else if (request.tool_choice === 'required') {
    warnings.push('tool_choice "required" with no tools; not sent');
  }
  const settings = request.settings;
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  const maxTokens = settings.max_tokens ?? defaultMaxTokens;
  if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
  if (settings.seed !== undefined) warnings.push('the Responses API has no seed; settings.seed ignored');
  return { body, warnings };
}

/** Map a Responses API response back to a normalised turn. */
export function fromResponsesResponse(response: Response, names: WireNames): Omit<ModelTurn, 'latency_ms'> {
  const warnings: string[] = [];
  const texts: string[] = [];
  const toolCalls: ToolCallProposal[] = [];
  const searches: NativeToolSearch[] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') texts.push(part.text);
        else if (part.type === 'refusal') warnings.push(`refusal: ${part.refusal}`);
      }
    } else if (item.type === 'function_call') {
      // call_id is what a function_call_output must echo, so it is the proposal's id.
      toolCalls.push({ id: item.call_id, name: names.decode(item.name), arguments: item.arguments ?? '' });
    } else if (item.type === 'tool_search_call') {
      searches.push({ id: item.call_id ?? item.id, arguments: JSON.stringify(item.arguments ?? {}), results: [] });
    } else if (item.type === 'tool_search_output') {
      const search = searches.find((candidate) => candidate.id === (item.call_id ?? item.id)) ?? searches.at(-1);
      if (search) search.results = loadedNames(item.tools ?? [], names);
    } else if (item.type !== 'reasoning') {
      warnings.push(`ignored an output item of type "${item.type}"`);
    }
  }
  let rawReason: string | null = response.status ?? null;
  if (response.status === 'incomplete') {
    rawReason = response.incomplete_details?.reason ?? 'incomplete';
    warnings.push(`response incomplete: ${rawReason}`);
  } else if (response.status === 'failed') {
    warnings.push(`response failed: ${response.error?.message ?? 'no reason given'}`);
    rawReason = 'error';
  }
  const usage = response.usage
    ? { input_tokens: response.usage.input_tokens ?? 0, output_tokens: response.usage.output_tokens ?? 0 }
    : (warnings.push('response carried no usage; tokens counted as 0'), { input_tokens: 0, output_tokens: 0 });
  return {
    text: texts.length > 0 ? texts.join('') : null,
    tool_calls: toolCalls,
    usage,
    finish_reason: normaliseFinishReason(rawReason, toolCalls.length > 0),
    warnings,
    ...(searches.length > 0 ? { tool_searches: searches } : {}),
  };
}
