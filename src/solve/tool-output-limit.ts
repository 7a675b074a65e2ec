import { cutToBytes, overBytes, type CallRecord } from '../spec/index.ts';

/**
 * A tool result over `maxBytes` (its JSON text, as the model would be sent
 * it; `run.max_tool_output_bytes`) is replaced, in the record and in the
 * conversation, by a note saying so and the JSON's first `maxBytes` bytes:
 * one runaway handler must not fill the run folder (a 20 MB output once
 * made a 61 MB folder) or the model's context. The size is recorded in
 * `CallRecord.output_truncated`, and the note is what the reports show.
 */
export function limitToolOutput(
  outcome: CallRecord['outcome'],
  maxBytes: number,
): { outcome: CallRecord['outcome']; truncated: CallRecord['output_truncated']; json: string | null } {
  const json = resultContent(outcome);
  const bytes = overBytes(json, maxBytes);
  // Within the limit, the JSON measured is the text the model is sent (resultContent): not made twice.
  if (bytes === null) return { outcome, truncated: undefined, json };
  const note = `tool output cut from ${bytes.toLocaleString('en-US')} to ${maxBytes.toLocaleString('en-US')} bytes (run.max_tool_output_bytes)`;
  const head = cutToBytes(json, maxBytes);
  const truncated = { bytes, limit: maxBytes };
  if (outcome.ok) return { outcome: { ...outcome, output: { truncated: note, head } }, truncated, json: null };
  // An error keeps its code and category (graders and recovery read them); its message and details are cut.
  const error = outcome.error;
  return {
    outcome: {
      ok: false,
      error: { ...error, message: cutToBytes(error.message, maxBytes), details: { truncated: note } },
    },
    truncated,
    json: null,
  };
}

/** The text the model is sent as a call's result: its output's JSON, or its error's. */
export function resultContent(outcome: CallRecord['outcome']): string {
  return JSON.stringify(outcome.ok ? (outcome.output ?? null) : outcome.error);
}
