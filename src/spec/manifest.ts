import { z } from 'zod';
import { ProjectConfig } from './config.ts';
import { orderedShapeCheck } from './shape-check.ts';
import { RunSelection } from './selection.ts';
import { SweepPlan } from './sweep.ts';

/**
 * `Manifest.config`: the project configuration the run used (after flags; no
 * secrets), with what the run selected (`toolmark run`) or the runs it was
 * merged from (`toolmark merge`). A field left out takes its
 * `ProjectConfig` default when the manifest is read; keys it does not know
 * are kept (loose), so a hand-made or older manifest still reads.
 */
export const ManifestConfig = z.looseObject({
  ...ProjectConfig.shape,
  selection: RunSelection.optional(),
  merged_from: z.array(z.string()).optional(),
});
export type ManifestConfig = z.infer<typeof ManifestConfig>;

/** `results/<run-id>/manifest.json`, written before the first trial (SPEC §3). */
export const Manifest = z.object({
  v: z.literal(1),
  run_id: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  git_commit: z.string().nullable(),
  toolmark_version: z.string(),
  node_version: z.string(),
  /** The effective configuration after flags (no secrets). */
  config: ManifestConfig,
  providers: z.array(
    z.object({
      id: z.string(),
      provider: z.string(),
      model: z.string(),
      synthetic: z.boolean().default(false),
      /** A live provider's effective base URL (a preset's, OPENAI_BASE_URL, the vendor's), never with credentials. */
      base_url: z.string().optional(),
    }),
  ),
  surfaces: z.array(
    z.object({
      domain: z.string(),
      id: z.string(),
      hash: z.string(),
      schema_tokens: z.number(),
      schema_bytes: z.number(),
    }),
  ),
  tasks: z.array(z.object({ domain: z.string(), id: z.string(), kind: z.string(), split: z.string() })),
  trials: z.number().int().positive(),
  /** Shard `i/n` when this run is one CI matrix job. */
  shard: z.string().nullable().default(null),
  /** Total planned trials (tasks × surfaces × providers × trials). */
  planned: z.number().int().nonnegative(),
  /**
   * Set by `toolmark merge --allow-partial` when a shard merged had not
   * finished: the merged run is partial, and every report says so.
   */
  partial: z
    .array(
      z.object({
        run_id: z.string(),
        /** Trials of the shard in the merge, against the shard's plan. */
        trials: z.number().int().nonnegative(),
        planned: z.number().int().nonnegative(),
      }),
    )
    .optional(),
  /** Set by `toolmark report --rescore`: the verdicts were graded again, against the tasks of that day. */
  rescored: z
    .object({
      at: z.string(),
      toolmark_version: z.string(),
      trials: z.number().int().nonnegative(),
      /** Trials whose verdicts changed (trials.jsonl was rewritten when any did). */
      changed: z.number().int().nonnegative(),
    })
    .optional(),
  /**
   * What the grades were computed from: digests of toolmark's code, the
   * config file and each domain's files (src/run/grading-inputs.ts). Absent
   * when a domain's grading can depend on files the digest cannot see (a
   * TypeScript or MCP domain); a re-score then always grades again.
   */
  grading_inputs: z
    .object({
      code: z.string(),
      config: z.string(),
      domains: z.record(z.string(), z.string()),
      /** Digest of each file of those domains (path from the project root): a re-score parses only the files that changed. */
      files: z.record(z.string(), z.string()).optional(),
      /** Digest of the sorted task ids of each task file: an edit that keeps a file's ids re-grades only that file's trials. */
      task_ids: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /** Set by `toolmark sweep`: the ladder its surfaces form (the reports add a sweep section). */
  sweep: SweepPlan.optional(),
});
export type Manifest = z.infer<typeof Manifest>;

/**
 * True only when `Manifest.parse(value)` would return the value unchanged,
 * its keys in the same order (src/spec/shape-check.ts): a manifest toolmark
 * just built is written as it is, not through a copy zod makes of it.
 */
export const isManifestAsParsed = orderedShapeCheck(Manifest);
