import { z } from 'zod';
import { DistractorSource } from './surface-options.ts';

/**
 * One rung of a sweep's ladder: a surface derived from the base by adding
 * distractors up to `tools`, sent with one loading mode (`eager`: the whole
 * payload in every request; `deferred`: always-loaded tools + `search_tools`).
 */
export const SweepRung = z.object({
  surface: z.string(),
  tools: z.number().int().positive(),
  distractors: z.number().int().nonnegative(),
  loading: z.string().default('eager'),
  /** Deferred rungs: o200k tokens of the first request (always-loaded tools + the search tool). */
  initial_schema_tokens: z.number().int().nonnegative().optional(),
  /** Deferred rungs: how many tools one search returns (the emulated search_tools: BM25's top k). */
  top_k: z.number().int().positive().optional(),
});
export type SweepRung = z.infer<typeof SweepRung>;

/** `manifest.json` `sweep`: how `toolmark sweep` built the surfaces of the run (issue 19 item 4). */
export const SweepPlan = z.object({
  v: z.literal(1),
  domain: z.string(),
  base: z.object({ surface: z.string(), hash: z.string(), tools: z.number().int().nonnegative() }),
  from: z.array(DistractorSource),
  seed: z.number().int().nonnegative(),
  /** Seed of a shuffle applied to every rung (null: distractors stay after the base tools). */
  shuffle: z.number().int().nonnegative().nullable(),
  rungs: z.array(SweepRung),
});
export type SweepPlan = z.infer<typeof SweepPlan>;
