import { SEARCH_TOOL_NAME, type ModelMessage, type ModelTurn } from '../../src/spec/index.ts';
import type { Policy } from './policy.ts';

/**
 * A synthetic behaviour on a deferred surface (emulated `search_tools`):
 * the inner policy decides as if the whole payload were loaded (so its
 * choices, distractor pull included, match the eager rung's); when it calls
 * a tool the request does not carry, this wrapper first spends a turn on
 * `search_tools` with the tool's name and description as the query. If that
 * query was already searched and the tool still is not loaded (BM25 missed
 * it), the call goes out anyway — the model guesses a name it was never
 * shown. Scripted, like the behaviours: it describes no real model.
 */
export function searchingPolicy(inner: Policy): Policy {
  return (request, key, context) => {
    const { surface } = context;
    if (!surface.loading) return inner(request, key, context);
    // The inner policy sees the conversation without the search turns, numbered as on an eager surface.
    const searchIds = new Set<string>();
    const queries = new Set<string>();
    const messages: ModelMessage[] = [];
    for (const message of request.messages) {
      if (message.role === 'assistant' && message.tool_calls.some((call) => call.name === SEARCH_TOOL_NAME)) {
        for (const call of message.tool_calls) {
          searchIds.add(call.id);
          queries.add((JSON.parse(call.arguments) as { query: string }).query);
        }
        continue;
      }
      if (message.role === 'tool' && searchIds.has(message.tool_call_id)) continue;
      messages.push(message);
    }
    const searchTurns = request.messages.filter(
      (message) => message.role === 'assistant' && message.tool_calls.some((call) => call.name === SEARCH_TOOL_NAME),
    ).length;
    const turn = inner(
      { ...request, messages, tools: surface.payload },
      { ...key, turn: key.turn - searchTurns },
      context,
    );
    const offered = new Set(request.tools.map((tool) => tool.name));
    for (const call of turn.tool_calls) {
      if (offered.has(call.name)) continue;
      const definition = surface.payload.find((tool) => tool.name === call.name);
      if (!definition) continue;
      const query = `${definition.name.replace(/[._-]+/g, ' ')} ${definition.description}`.trim();
      if (queries.has(query)) continue;
      const search: ModelTurn = {
        ...turn,
        text: null,
        tool_calls: [{ id: `search_${key.turn}`, name: SEARCH_TOOL_NAME, arguments: JSON.stringify({ query }) }],
        finish_reason: 'tool_calls',
      };
      return search;
    }
    return turn;
  };
}
