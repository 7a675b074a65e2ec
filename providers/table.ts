import { closest } from '../src/spec/index.ts';
import type { Provider, ProviderPreset } from '../src/spec/index.ts';
import { anthropicKind, type AnthropicSpec } from './kinds/anthropic.ts';
import { badSpec, type CreateProviderContext, type PresetProviderKind, type ProviderKind } from './kinds/kind.ts';
import { openaiCompatibleKind, type CompatibleSpec } from './kinds/openai-compatible.ts';
import { openaiChatKind, openaiResponsesKind, type OpenAISpec } from './kinds/openai.ts';
import { replayKind, type ReplaySpec } from './kinds/replay.ts';
import { scriptedKind, type ScriptedSpec } from './kinds/scripted.ts';

/**
 * The provider table: one row per kind, looked up by the text before the
 * first colon of `--provider`. Parsing, keys, factories, default output
 * caps, presets and the `--help` text all come from here. A preset's
 * `kind` must name a row with `createPreset` (the spec's ProviderPreset enum
 * lists the same kinds; the type below fails when they disagree).
 */
export const PROVIDER_TABLE = {
  replay: replayKind,
  openai: openaiChatKind,
  'openai-responses': openaiResponsesKind,
  'openai-compatible': openaiCompatibleKind,
  anthropic: anthropicKind,
  scripted: scriptedKind,
} satisfies Record<string, ProviderKind<any>> & Record<ProviderPreset['kind'], PresetProviderKind<any>>;

export type ProviderKindName = keyof typeof PROVIDER_TABLE;

/** A parsed `--provider` value: which row, with what model and options. */
export type ProviderSpec =
  | ReplaySpec
  | OpenAISpec
  | CompatibleSpec
  | AnthropicSpec
  | ScriptedSpec
  | { kind: 'preset'; text: string; name: string; preset: ProviderPreset };

function row(kind: string): ProviderKind<any> | undefined {
  return Object.hasOwn(PROVIDER_TABLE, kind) ? (PROVIDER_TABLE as Record<string, ProviderKind<any>>)[kind] : undefined;
}

/** The row a spec (or a preset) stands for. */
export function providerKindOf(spec: ProviderSpec): ProviderKind<any> {
  return row(spec.kind === 'preset' ? spec.preset.kind : spec.kind)!;
}

/**
 * Parse `replay:PATH[,PATH]`, `openai:MODEL`, `openai-responses:MODEL`,
 * `openai-compatible:MODEL@URL`, `anthropic:MODEL`, `scripted`, or the name
 * of a preset in the config's `providers:` table.
 */
export function parseProviderSpec(text: string, presets: Record<string, ProviderPreset> = {}): ProviderSpec {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const head = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const rest = colon === -1 ? '' : trimmed.slice(colon + 1);
  const kind = row(head);
  if (kind) return kind.parse(rest, trimmed);
  if (colon === -1 && Object.hasOwn(presets, trimmed))
    return { kind: 'preset', text: trimmed, name: trimmed, preset: presets[trimmed]! };
  const known = [...Object.keys(PROVIDER_TABLE), ...Object.keys(presets)];
  throw badSpec(
    trimmed,
    `unknown provider "${head}"`,
    `one of ${known.join(', ')} (a preset name comes from toolmark.config.yaml providers:)`,
    closest(head, known),
  );
}

/**
 * Make the providers a spec stands for. Replay yields one provider per
 * recorded model; every other kind yields one. Adapters are imported
 * lazily, so a replay run never loads an SDK. A missing key is a
 * ConfigError here, before any call.
 */
export async function createProviders(spec: ProviderSpec, context: CreateProviderContext): Promise<Provider[]> {
  const kind = providerKindOf(spec);
  const providers =
    spec.kind === 'preset'
      ? [await kind.createPreset!(spec.name, spec.preset, context, presetLimits(spec.preset))]
      : await kind.create(spec, context);
  return providers;
}

function presetLimits(preset: ProviderPreset) {
  return {
    timeoutMs: preset.timeout_ms,
    maxRetries: preset.max_retries,
    rateLimitRetryBudget: preset.rate_limit_retry_budget,
    requestsPerMinute: preset.requests_per_minute,
    concurrency: preset.concurrency,
    dropSchemaKeywords: preset.drop_schema_keywords,
  };
}

/** `--provider` help: every row's usage, then presets. */
export function providerUsage(): string {
  return `${Object.values(PROVIDER_TABLE)
    .map((kind) => kind.usage)
    .join(' | ')} | a config preset (repeatable)`;
}
