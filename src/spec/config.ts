import { z } from 'zod';
import { MIN_REQUESTS_PER_MINUTE, TimeoutMs, TrialCount } from './numeric-limits.ts';
import { MAX_SIZE_LIMIT_BYTES } from './size-limits.ts';

/** Price per million tokens for one model. */
export const Price = z.strictObject({
  input_per_million: z.number().nonnegative(),
  output_per_million: z.number().nonnegative(),
});
export type Price = z.infer<typeof Price>;

/** Most retries after a request's first attempt a preset may ask for: more would only hide a server that is down. */
export const MAX_RETRIES = 20;
/** Largest total of 429 retries a preset may allow over a run. */
export const MAX_RATE_LIMIT_RETRY_BUDGET = 100_000;

/** A named provider preset (e.g. a local OpenAI-compatible server). */
export const ProviderPreset = z.strictObject({
  kind: z.enum(['openai', 'openai-responses', 'openai-compatible', 'anthropic']),
  model: z.string(),
  base_url: z.string().optional(),
  /** Name of the environment variable holding the key (never the key itself). */
  api_key_env: z.string().optional(),
  /** May be below 1 (0.5 = one request every two minutes), down to one a day. */
  requests_per_minute: z
    .number()
    .min(MIN_REQUESTS_PER_MINUTE, 'at least 1/1440 (one request a day): a slower rate waits longer than a timer can')
    .optional(),
  concurrency: z.number().int().positive().optional(),
  /** Per attempt; at most a day, so every timer the adapters arm stays within what Node can wait (2^31 − 1 ms). */
  timeout_ms: TimeoutMs.optional(),
  max_retries: z
    .number()
    .int()
    .nonnegative()
    .max(MAX_RETRIES, `at most ${MAX_RETRIES}: more would only hide a server that is down`)
    .optional(),
  /** Retries after 429s allowed in a row, over every request of this provider, with no request succeeding in between (default 100; docs/providers.md#rate-limits). */
  rate_limit_retry_budget: z.number().int().nonnegative().max(MAX_RATE_LIMIT_RETRY_BUDGET).optional(),
  /**
   * JSON Schema keywords left out of the tools payload sent to this server
   * (e.g. `[pattern]` for a llama.cpp that cannot compile a pattern into a
   * grammar); calls are still validated against the full schema.
   */
  drop_schema_keywords: z.array(z.string().min(1)).optional(),
});
export type ProviderPreset = z.infer<typeof ProviderPreset>;

/** Gate thresholds for `toolmark gate` and the JUnit report. */
export const GateConfig = z.strictObject({
  /** Held-out task_success may drop by at most this much; `noise` = the A/A noise floor (MDE). */
  max_task_success_drop: z.union([z.number().min(0).max(1), z.literal('noise')]).default('noise'),
  max_unsafe_side_effects: z.number().int().nonnegative().default(0),
  min_argument_validity: z.number().min(0).max(1).default(0.9),
  /** A task × surface JUnit case fails when its trials' success rate is below this. */
  junit_min_success: z.number().min(0).max(1).default(0.5),
  /** Which paired tasks the task_success drop is measured on (docs/metrics.md §4). */
  split: z.enum(['heldout', 'train', 'all']).default('heldout'),
  /** The drop the gate should be able to detect; a gate whose smallest detectable drop is larger warns (or fails, with require_power). */
  detect_drop: z.number().gt(0).max(1).default(0.1),
  /** Fail the drop check when the gate is underpowered (it could not detect a drop of `detect_drop`). */
  require_power: z.boolean().default(false),
});
export type GateConfig = z.infer<typeof GateConfig>;

/** `toolmark.config.yaml` at the project root: defaults that flags override (SPEC §7). */
export const ProjectConfig = z.strictObject({
  v: z.literal(1).default(1),
  /** Domain folders under suites/ (and heldout/). Default: every folder with a domain.ts. */
  domains: z.array(z.string()).optional(),
  run: z
    .strictObject({
      providers: z.array(z.string()).default(['replay']),
      trials: TrialCount.default(3),
      concurrency: z.number().int().positive().default(8),
      split: z.enum(['train', 'heldout', 'all']).default('all'),
      out: z.string().default('results'),
      /** Settings sent with each request. */
      temperature: z.number().optional(),
      max_tokens: z.number().int().positive().optional(),
      /**
       * How tool handlers' sleeps pass (src/registry/tool-time.ts): `simulated`
       * advances a per-call clock at once, `real` waits; `auto` is simulated
       * when every provider is offline (replay, scripted) and nothing is recorded.
       */
      tool_time: z.enum(['auto', 'real', 'simulated']).default('auto'),
      /** Stop a run whose provider failures will not heal (src/solve/early-stop.ts); false runs every planned trial anyway. */
      early_stop: z.boolean().optional(),
      /** Cap on each string of a model turn, in UTF-8 bytes (default 1 MiB; src/spec/size-limits.ts). */
      max_response_bytes: z.number().int().positive().max(MAX_SIZE_LIMIT_BYTES).optional(),
      /** Cap on one tool result as the model sees it, in UTF-8 bytes of its JSON (default 256 KiB). */
      max_tool_output_bytes: z.number().int().positive().max(MAX_SIZE_LIMIT_BYTES).optional(),
    })
    .default({ providers: ['replay'], trials: 3, concurrency: 8, split: 'all', out: 'results', tool_time: 'auto' }),
  providers: z.record(z.string(), ProviderPreset).default({}),
  prices: z.record(z.string(), Price).default({}),
  gate: GateConfig.default({
    max_task_success_drop: 'noise',
    max_unsafe_side_effects: 0,
    min_argument_validity: 0.9,
    junit_min_success: 0.5,
    split: 'heldout',
    detect_drop: 0.1,
    require_power: false,
  }),
});
export type ProjectConfig = z.infer<typeof ProjectConfig>;
