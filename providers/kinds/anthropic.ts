import { ANTHROPIC_DEFAULT_MAX_TOKENS } from '../anthropic/messages.ts';
import { needModel, presetKey, requireKey, type PresetProviderKind } from './kind.ts';

export type AnthropicSpec = { kind: 'anthropic'; text: string; model: string };

const KEY = 'ANTHROPIC_API_KEY';

/** `anthropic:MODEL`: the Messages API (ANTHROPIC_BASE_URL for a proxy); has a token-count API. */
export const anthropicKind: PresetProviderKind<AnthropicSpec> = {
  kind: 'anthropic',
  usage: 'anthropic:MODEL',
  summary: 'Anthropic Messages API (ANTHROPIC_BASE_URL for a proxy); counts schema tokens with its own API',
  keyVariable: KEY,
  offline: false,
  defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
  parse: (rest, text) => ({ kind: 'anthropic', text, model: needModel('anthropic', rest, text) }),
  async create(spec, context) {
    const apiKey = requireKey(context.env, KEY, spec.text);
    const { createAnthropicProvider } = await import('../anthropic/index.ts');
    return [
      createAnthropicProvider({
        model: spec.model,
        baseURL: context.env.ANTHROPIC_BASE_URL || undefined,
        apiKey,
        defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      }),
    ];
  },
  async createPreset(name, preset, context, limits) {
    const apiKey = presetKey(name, preset, KEY, context);
    const { createAnthropicProvider } = await import('../anthropic/index.ts');
    // The preset name is the provider id, as for OpenAI presets: two presets of one model stay two providers.
    return createAnthropicProvider({
      model: preset.model,
      baseURL: preset.base_url,
      apiKey,
      id: name,
      defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      ...limits,
    });
  },
};
