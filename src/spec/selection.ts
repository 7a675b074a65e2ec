import { z } from 'zod';
import { TrialCount } from './numeric-limits.ts';

/**
 * What a run selects — providers × surfaces × tasks × trials — stored in the
 * manifest (`config.selection`) so `toolmark run --resume` replays exactly
 * the same plan. Field order is the order manifests have always listed.
 */
export const RunSelection = z.strictObject({
  /** Provider specs as given (`replay`, `openai:gpt-4.1-mini`, a preset name). */
  providers: z.array(z.string()),
  /** Surface ids; empty = every surface. */
  surfaces: z.array(z.string()),
  split: z.enum(['train', 'heldout', 'all']),
  trials: TrialCount,
  /** Domain names; empty = every domain of the project. */
  domains: z.array(z.string()),
  /** Glob over task ids (`*` and `?`), or null for all. */
  task: z.string().nullable(),
  /** `i/n` when this run is one CI matrix job. */
  shard: z.string().nullable(),
  allow_stale: z.boolean(),
  /**
   * As asked (flag or config) before the run starts; the manifest stores it
   * resolved (`real` or `simulated`), so a resume keeps it. Absent in older
   * runs: auto.
   */
  tool_time: z.enum(['auto', 'real', 'simulated']).optional(),
});
export type RunSelection = z.infer<typeof RunSelection>;
