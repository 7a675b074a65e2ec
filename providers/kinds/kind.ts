import { ConfigError } from '../../src/spec/index.ts';
import { withoutCredentials } from '../http/base-url.ts';
import type { ProjectConfig, Provider, ProviderPreset } from '../../src/spec/index.ts';

/** What a provider factory may read: never a file for keys. */
export interface CreateProviderContext {
  config: ProjectConfig;
  /** Where keys come from (process.env in the CLI); never from files. */
  env: Record<string, string | undefined>;
  /** Base for relative cassette paths. */
  root?: string;
  allowStale?: boolean;
}

/** The limits a preset may set, in adapter terms. */
export interface PresetLimits {
  timeoutMs?: number;
  maxRetries?: number;
  rateLimitRetryBudget?: number;
  requestsPerMinute?: number;
  concurrency?: number;
  dropSchemaKeywords?: readonly string[];
}

/**
 * One provider kind: one row of the provider table (providers/table.ts).
 * Everything the CLI, the config check and `--help` need about a kind is
 * here, so a new kind is this row and its own file.
 */
export interface ProviderKind<Spec extends { kind: string; text: string }> {
  kind: Spec['kind'];
  /** How it is written on the command line, e.g. `openai:MODEL` (for `--help` and errors). */
  usage: string;
  /** One line for docs and help. */
  summary: string;
  /** Environment variable holding the key; null when none is needed. */
  keyVariable: string | null;
  /** No live model behind it (replay, scripted). */
  offline: boolean;
  /** Output-token cap sent when neither the task nor the config sets one (live kinds; docs/providers.md). */
  defaultMaxTokens: number | null;
  /** Parse the text after `kind:`; a ConfigError on a bad value. */
  parse(rest: string, text: string): Spec;
  /** Make the providers the spec stands for (a missing key is a ConfigError, before any call). */
  create(spec: Spec, context: CreateProviderContext): Promise<Provider[]>;
  /** Make one provider from a config preset of this kind; absent = kind not usable as a preset. */
  createPreset?(
    name: string,
    preset: ProviderPreset,
    context: CreateProviderContext,
    limits: PresetLimits,
  ): Promise<Provider>;
}

/** A kind a config preset may name (`providers:` in toolmark.config.yaml). */
export type PresetProviderKind<Spec extends { kind: string; text: string }> = ProviderKind<Spec> &
  Required<Pick<ProviderKind<Spec>, 'createPreset'>>;

/** A ConfigError about a `--provider` value (shown without any credentials its URL holds). */
export function badSpec(text: string, message: string, expected: string, suggestion?: string): ConfigError {
  return new ConfigError({ file: '--provider', field: withoutCredentials(text), message, expected, suggestion });
}

/** The model after `kind:`, required. */
export function needModel(kind: string, rest: string, text: string): string {
  if (rest.trim() === '') throw badSpec(text, `provider "${kind}" needs a model`, `${kind}:MODEL`);
  return rest.trim();
}

/** The key from the environment, or a ConfigError naming the variable. */
export function requireKey(env: CreateProviderContext['env'], variable: string, text: string): string {
  const key = env[variable];
  if (!key)
    throw badSpec(
      text,
      `no API key: set the environment variable ${variable}`,
      `${variable} in the environment (keys are never read from files)`,
    );
  return key;
}

/** A preset's key: its `api_key_env`, else the kind's own variable (none needed when the kind has none). */
export function presetKey(
  name: string,
  preset: ProviderPreset,
  kindVariable: string | null,
  context: CreateProviderContext,
  fallback?: string,
): string {
  const variable = preset.api_key_env ?? kindVariable;
  if (variable) return requireKey(context.env, variable, name);
  return fallback ?? 'not-needed';
}
