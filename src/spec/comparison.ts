import { z } from 'zod';

/** A compare verdict per metric (docs/metrics.md, "Compare verdicts"). */
export const CompareVerdict = z.enum(['better', 'worse', 'no detectable change', 'no data']);
export type CompareVerdict = z.infer<typeof CompareVerdict>;

/** One metric of one compare section: A and B on the same paired trials. */
export const ComparedMetric = z.object({
  metric: z.string(),
  /** Per-trial 0/1 outcome (McNemar applies) or a per-trial number. */
  binary: z.boolean(),
  higher_is_better: z.boolean(),
  /** Pairs where both sides have a value; tasks they cover. */
  n: z.number().int().nonnegative(),
  tasks: z.number().int().nonnegative(),
  a: z.number().nullable(),
  b: z.number().nullable(),
  /** b − a with its paired bootstrap 95% interval. */
  difference: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  /** Resampling unit of the bootstrap. */
  resampled: z.enum(['tasks', 'trials']).nullable(),
  /** Exact McNemar test: b = pairs A pass / B fail, c = A fail / B pass. */
  mcnemar: z.object({ b: z.number().int(), c: z.number().int(), p: z.number() }).nullable(),
  /** Minimum detectable effect for this n (α 0.05, power 0.8), binary metrics only. */
  mde: z.number().nullable(),
  verdict: CompareVerdict,
});
export type ComparedMetric = z.infer<typeof ComparedMetric>;

/** A task whose success count changed between A and B on its paired trials. */
export const FlippedTask = z.object({
  task: z.string(),
  a: z.object({ c: z.number().int(), n: z.number().int() }),
  b: z.object({ c: z.number().int(), n: z.number().int() }),
});
export type FlippedTask = z.infer<typeof FlippedTask>;

export const CompareSection = z.object({
  split: z.enum(['train', 'heldout', 'all']),
  kind: z.string(),
  pairs: z.number().int().nonnegative(),
  schema_tokens: z.object({ a: z.number().nullable(), b: z.number().nullable(), difference: z.number().nullable() }),
  metrics: z.array(ComparedMetric),
  flipped: z.object({ better: z.array(FlippedTask), worse: z.array(FlippedTask) }),
});
export type CompareSection = z.infer<typeof CompareSection>;

export const CompareSide = z.object({
  label: z.string(),
  run_id: z.string(),
  run_dir: z.string(),
  /** Surface selected from the run; null = every surface of the run. */
  surface: z.string().nullable(),
  surfaces: z.array(z.string()),
  providers: z.array(z.string()),
  synthetic: z.boolean(),
  /** Trials of the selected surface(s), and how many of them errored (provider failures). */
  trials: z.number().int().nonnegative(),
  errored: z.number().int().nonnegative(),
  /** The first errored trial's message, so a side that failed says why. */
  first_error: z.string().nullable(),
});
export type CompareSide = z.infer<typeof CompareSide>;

export const HeldoutCheck = z.object({
  status: z.enum(['overfit', 'confirmed', 'no_train_improvement', 'no_train', 'no_heldout']),
  message: z.string(),
});
export type HeldoutCheck = z.infer<typeof HeldoutCheck>;

export const NoiseFloor = z.object({
  split: z.enum(['train', 'heldout', 'all']),
  metric: z.string(),
  n: z.number().int().nonnegative(),
  difference: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  mde: z.number().nullable(),
});
export type NoiseFloor = z.infer<typeof NoiseFloor>;

/** `toolmark compare --json` output (SPEC §5, §7). */
export const Comparison = z.object({
  v: z.literal(1),
  a: CompareSide,
  b: CompareSide,
  pairing: z.object({
    /** Fields that identify a pair (always domain, task, trial; plus provider/model/surface when they vary within a side). */
    key: z.array(z.string()),
    pairs: z.number().int().nonnegative(),
    unpaired_a: z.number().int().nonnegative(),
    unpaired_b: z.number().int().nonnegative(),
    /** Pairs dropped because either trial errored (provider failure). */
    errored: z.number().int().nonnegative(),
    /** Same surface of one run: trial 2j is paired with trial 2j + 1. */
    split_trials: z.boolean(),
  }),
  /** A/A: both sides saw the same surface (same content hash), provider and model. */
  aa: z.boolean(),
  sections: z.array(CompareSection),
  heldout_check: HeldoutCheck,
  noise_floor: z.array(NoiseFloor),
  /** Reasons not to trust the verdicts as they stand (e.g. too few tasks). */
  warnings: z.array(z.string()).default([]),
});
export type Comparison = z.infer<typeof Comparison>;
