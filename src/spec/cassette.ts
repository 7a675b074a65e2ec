import { z } from 'zod';
import { ModelTurn } from './model.ts';
import { shapeCheck } from './shape-check.ts';
import { hasOneOutcome } from './cassette-outcome.ts';
import { NativeSearch } from './surface-loading.ts';

/** Cassette key: `trial` may be `"*"` in hand-written fixtures (matches any trial). */
export const CassetteKey = z.strictObject({
  domain: z.string(),
  task: z.string(),
  surface: z.string(),
  trial: z.union([z.number().int().nonnegative(), z.literal('*')]),
  turn: z.number().int().nonnegative(),
});
export type CassetteKey = z.infer<typeof CassetteKey>;

/** One recorded model turn, one JSONL line (SPEC §3). Never holds credentials or headers. */
export const CassetteLine = z
  .strictObject({
    v: z.literal(1),
    provider: z.string(),
    model: z.string(),
    key: CassetteKey,
    /** `sha256:…` over model, messages and the exact tools payload; absent in hand-written fixtures. */
    request_hash: z.string().optional(),
    /** `sha256:…` of the tools payload alone, so a stale line can say whether the surface changed. */
    tools_hash: z.string().optional(),
    /** `sha256:…` of system + messages alone (the task, or an earlier tool result, changed). */
    messages_hash: z.string().optional(),
    /**
     * The provider's own tool search the recorded request was sent with
     * (`anthropic`, `openai`); absent on every other line. Replay declares it,
     * so a native recording replays through the native path, hash for hash.
     */
    tool_search: NativeSearch.optional(),
    /** A free label, e.g. `synthetic: careful`. Shipped fixtures say they are synthetic. */
    label: z.string().optional(),
    /** The model's turn; absent when the recorded request failed (then `error` says how). */
    response: ModelTurn.optional(),
    /** The provider failure a recorded request ended in (redacted, as in the trial record): replay reproduces it. */
    error: z
      .strictObject({
        status: z.number().nullable(),
        message: z.string(),
        retryable: z.boolean(),
        scope: z.enum(['run', 'request']).optional(),
      })
      .optional(),
  })
  .refine(hasOneOutcome, {
    message: 'a cassette line has either a response or an error',
    path: ['response'],
  });
export type CassetteLine = z.infer<typeof CassetteLine>;

/** `CassetteLine.parse` would accept the value unchanged (a cassette's lines are checked at load; any other goes through the schema). */
const structural = shapeCheck(CassetteLine);
// The structural check does not see the refinement: a line holds exactly one of response and error.
export const isCassetteLineShape = (value: unknown): value is CassetteLine => structural(value) && hasOneOutcome(value);
