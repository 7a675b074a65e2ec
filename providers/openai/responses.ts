import type {
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
import { loadedNames, responsesNames, toResponsesToolPayload, type ResponsesNames } from './responses-tools.ts';

export { responsesNames } from './responses-tools.ts';

/** Tools in the Responses API wire shape, flat (no request, so no namespaces): exactly what the adapter sends. */
export function toResponsesTools(tools: readonly ToolDefinition[], names: WireNames): Tool[] {
  return toResponsesToolPayload(tools, {
    namespaces: [],
    encode: (name) => ({ name: names.encode(name) }),
    decode: (name) => names.decode(name),
  });
}

/** A past hosted search re-sent as its two items (stateless: `store: false` keeps nothing server-side). */
function searchItems(search: NativeToolSearch, request: ModelRequest, names: ResponsesNames): ResponseInputItem[] {
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
      // Loaded tools in the shape the search returned them: inside their namespace, no longer deferred.
      tools: toResponsesToolPayload(
        loaded.map(({ defer_loading: _deferred, ...tool }) => tool),
        names,
      ),
    },
  ];
}

/** Map the normalised request to a Responses API body (stateless: `store: false`, full history every turn). */
export function toResponsesRequest(
  request: ModelRequest,
  wireNames: WireNames,
  defaultMaxTokens?: number,
): { body: ResponseCreateParamsNonStreaming; warnings: string[] } {
  const warnings: string[] = [];
  const names = responsesNames(request, wireNames);
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
            // `{name}`, or `{namespace, name}` for a tool sent inside a namespace, as the model called it.
            ...names.encode(call.name),
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
    const tools = toResponsesToolPayload(request.tools, names);
    body.tools = request.tool_search ? [{ type: 'tool_search' }, ...tools] : tools;
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
export function fromResponsesResponse(response: Response, names: ResponsesNames): Omit<ModelTurn, 'latency_ms'> {
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
      // A namespaced function comes back as {namespace, name}: mapped to the exposed dotted name.
      toolCalls.push({
        id: item.call_id,
        name: names.decode(item.name, item.namespace),
        arguments: item.arguments ?? '',
      });
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
