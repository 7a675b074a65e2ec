import { ModelTurn, isModelTurnShape } from '../spec/index.ts';
import type { SideEffect, ToolCallProposal, ToolError } from '../spec/index.ts';

// The runner builds its trial records itself instead of running each one
// through the zod TrialRecord schema (a large share of a replayed trial's
// cost). What the schema did for values from outside the trial loop —
// fill defaults, drop unknown keys, order keys — is done here, field by
// field, so records stay byte-identical; the finished record then gets the
// cheap structural check of src/run-folder (trial.ts).

/** A proposal with exactly its three fields (a provider may carry more). */
export function normalProposal(proposal: ToolCallProposal): ToolCallProposal {
  return { id: proposal.id, name: proposal.name, arguments: proposal.arguments };
}

/**
 * A provider's answer as `ModelTurn.parse` would give it: defaults filled,
 * keys in schema order, a fresh object. A turn with a field of the wrong
 * type goes through the schema, which says what is wrong.
 */
export function normalTurn(turn: ModelTurn): ModelTurn {
  const raw = turn as Partial<ModelTurn>;
  const usage = raw.usage ?? { input_tokens: 0, output_tokens: 0 };
  const normal: ModelTurn = {
    text: raw.text as string | null,
    tool_calls: (raw.tool_calls ?? []).map(normalProposal),
    usage: { input_tokens: usage.input_tokens ?? 0, output_tokens: usage.output_tokens ?? 0 },
    latency_ms: raw.latency_ms ?? 0,
    finish_reason: raw.finish_reason ?? 'stop',
    warnings: raw.warnings ?? [],
  };
  // Only native deferred loading sets it; absent otherwise, so other records keep their bytes.
  if (raw.tool_searches !== undefined)
    normal.tool_searches = raw.tool_searches.map((search) => ({
      id: search.id,
      arguments: search.arguments,
      results: search.results,
    }));
  return isModelTurnShape(normal) ? normal : ModelTurn.parse(turn);
}

/** A structured tool error with its five fields in schema order (`details` defaults to `{}`). */
export function normalToolError(error: ToolError): ToolError {
  return {
    code: error.code,
    category: error.category,
    message: error.message,
    retryable: error.retryable,
    details: error.details ?? {},
  };
}

/** A judged side effect with its fields in schema order. */
export function normalEffect(effect: SideEffect, judged: { authorized: boolean; duplicate: boolean }): SideEffect {
  return {
    action: effect.action,
    effect: effect.effect,
    target: effect.target,
    change_id: effect.change_id ?? null,
    authorized: judged.authorized,
    duplicate: judged.duplicate,
  };
}
