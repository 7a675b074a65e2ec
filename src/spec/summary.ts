import { z } from 'zod';

/** A rate with its Wilson 95% interval. */
export const Rate = z.object({
  value: z.number().nullable(),
  n: z.number().int().nonnegative(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
});
export type Rate = z.infer<typeof Rate>;

export const Count = z.object({ count: z.number().nonnegative(), n: z.number().int().nonnegative() });
export type Count = z.infer<typeof Count>;

/** A distribution (tokens, latency). */
export const Distribution = z.object({
  mean: z.number().nullable(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  total: z.number(),
  n: z.number().int().nonnegative(),
});
export type Distribution = z.infer<typeof Distribution>;

/**
 * Deferred loading (issue 19), only on groups with deferred-surface trials.
 * Retrieval is judged on trials whose task needs a tool that is not always
 * loaded; selection is then split by whether the search found that tool.
 */
export const RetrievalMetrics = z.object({
  /** The search's k (the surface's `search.top_k`; the largest when a group mixes surfaces). */
  top_k: z.number().int().nonnegative(),
  /** Trials where a search returned a tool for the needed action, of the judged trials: recall@k. */
  recall_at_k: Rate,
  /** Judged trials that searched at all (a miss without a search is the model's, not the index's). */
  searched: Rate,
  /** Mean 1-based rank of the needed tool, over the trials that found it. */
  mean_rank: z.number().nullable(),
  /** Selection among judged trials whose search found the tool ("the model ignored it" when low). */
  selection_given_found: Rate,
  /** Selection among judged trials whose search did not ("the search missed it"). */
  selection_given_missed: Rate,
  searches_per_trial: z.number(),
  /** Mean per trial: schema tokens of the first request (always-loaded tools + search tool). */
  initial_schema_tokens: z.number(),
  /** Mean per trial: schema tokens of the tools searches loaded. */
  loaded_schema_tokens: z.number(),
  /** Mean over requests: schema tokens a request carried. */
  request_schema_tokens: z.number(),
  /** Trials on deferred surfaces in the group. */
  trials: z.number().int().nonnegative(),
});
export type RetrievalMetrics = z.infer<typeof RetrievalMetrics>;

/** The metrics of SPEC §5, with exactly these names. */
export const Metrics = z.object({
  selection_accuracy: Rate,
  argument_validity: Rate,
  argument_correctness: Rate,
  task_success: Rate,
  unsafe_proposals: Count,
  unsafe_side_effects: Count,
  recovery_rate: Rate,
  unnecessary_calls: Count,
  /** pass@k and pass^k for k = 1..n (index k-1). */
  pass_at_k: z.array(z.number()),
  pass_hat_k: z.array(z.number()),
  flip_rate: Rate,
  schema_tokens: z.number(),
  schema_bytes: z.number(),
  input_tokens: Distribution,
  output_tokens: Distribution,
  latency_ms: Distribution,
  cost_usd: z.number().nullable(),
  abstentions: z.record(z.string(), z.number()),
  errored: z.number().int().nonnegative(),
  trials: z.number().int().nonnegative(),
  /** Deferred loading; absent on groups with no deferred-surface trial. */
  retrieval: RetrievalMetrics.optional(),
});
export type Metrics = z.infer<typeof Metrics>;

export const SummaryGroup = Metrics.extend({
  provider: z.string(),
  model: z.string(),
  surface: z.string(),
  split: z.enum(['train', 'heldout', 'all']),
  kind: z.string(),
});
export type SummaryGroup = z.infer<typeof SummaryGroup>;

export const ConfusionCell = z.object({ expected: z.string(), chosen: z.string(), count: z.number().int() });

export const Summary = z.object({
  v: z.literal(1),
  run_id: z.string(),
  synthetic: z.boolean().default(false),
  groups: z.array(SummaryGroup),
  /** Per provider × model × surface: expected action × chosen (incl. `(no call)`, `(unknown tool)`). */
  confusion: z.array(
    z.object({ provider: z.string(), model: z.string(), surface: z.string(), cells: z.array(ConfusionCell) }),
  ),
});
export type Summary = z.infer<typeof Summary>;
