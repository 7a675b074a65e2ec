import { cutToBytes, overBytes } from '../src/spec/index.ts';
import type { ModelTurn, Provider, ToolCallProposal } from '../src/spec/index.ts';

/**
 * A provider whose turns keep every string within `maxBytes` of UTF-8 (the
 * text, each tool call's id, name and arguments; `run.max_response_bytes`).
 * A cut string gets a turn warning saying what and by how much, which the
 * record, the cassette and the reports keep; cut arguments are usually no
 * longer JSON, so the proposal scores as invalid arguments, as it should.
 * Applied outside the adapter and inside the recorder: the cassette holds
 * the cut turn, so a replay scores the same.
 */
export function limitResponseSize<P extends Provider>(provider: P, maxBytes: number): P {
  // Delegation keeps every declared capability (check, countSchemaTokens, getters) of the inner provider.
  const limited = Object.create(provider) as P & { propose: Provider['propose'] };
  limited.propose = async (request, options) => limitTurn(await provider.propose(request, options), maxBytes);
  return limited;
}

/** `turn` with each string over `maxBytes` cut, and a warning per cut; the same object when nothing is over. */
export function limitTurn(turn: ModelTurn, maxBytes: number): ModelTurn {
  const warnings: string[] = [];
  const cut = (text: string, what: string): string => {
    const bytes = overBytes(text, maxBytes);
    if (bytes === null) return text;
    warnings.push(
      `${what} cut from ${bytes.toLocaleString('en-US')} to ${maxBytes.toLocaleString('en-US')} bytes (run.max_response_bytes)`,
    );
    return cutToBytes(text, maxBytes);
  };
  const text = turn.text === null ? null : cut(turn.text, 'response text');
  const calls: ToolCallProposal[] = (turn.tool_calls ?? []).map((call, index) => ({
    ...call,
    id: cut(call.id, `tool call ${index + 1} id`),
    name: cut(call.name, `tool call ${index + 1} name`),
    arguments: cut(call.arguments, `tool call ${index + 1} arguments`),
  }));
  if (warnings.length === 0) return turn;
  return { ...turn, text, tool_calls: calls, warnings: [...(turn.warnings ?? []), ...warnings] };
}
