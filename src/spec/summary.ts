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
