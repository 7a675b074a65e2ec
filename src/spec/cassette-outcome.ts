/**
 * A cassette line's one rule its shape does not say: it holds exactly one
 * of `response` and `error`. Without zod, so the replay cassette worker
 * (providers/replay/check-without-schema.ts) applies the same rule as the
 * schema's refinement (cassette.ts).
 */
export function hasOneOutcome(line: { response?: unknown; error?: unknown }): boolean {
  return (line.response === undefined) !== (line.error === undefined);
}
