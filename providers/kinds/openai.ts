import { VENDOR_DEFAULT_MAX_TOKENS as OPENAI_DEFAULT_MAX_TOKENS } from '../http/max-tokens.ts';
import { needModel, presetKey, requireKey, type PresetProviderKind } from './kind.ts';

export type OpenAISpec = { kind: 'openai' | 'openai-responses'; text: string; model: string };

const KEY = 'OPENAI_API_KEY';

function openaiKind<K extends OpenAISpec['kind']>(
  kind: K,
  api: 'chat' | 'responses',
  summary: string,
): PresetProviderKind<OpenAISpec & { kind: K }> {
  return {
    kind,
    usage: `${kind}:MODEL`,
    summary,
    keyVariable: KEY,
    offline: false,
    defaultMaxTokens: OPENAI_DEFAULT_MAX_TOKENS,
    parse: (rest, text) => ({ kind, text, model: needModel(kind, rest, text) }),
    async create(spec, context) {
      const apiKey = requireKey(context.env, KEY, spec.text);
      const { createOpenAIProvider } = await import('../openai/index.ts');
      // OPENAI_BASE_URL points the official provider at a proxy or gateway.
      const baseURL = context.env.OPENAI_BASE_URL || undefined;
      return [
        createOpenAIProvider({
          model: spec.model,
          api,
          baseURL,
          apiKey,
          id: kind,
          defaultMaxTokens: OPENAI_DEFAULT_MAX_TOKENS,
        }),
      ];
    },
    async createPreset(name, preset, context, limits) {
      const apiKey = presetKey(name, preset, KEY, context);
      const { createOpenAIProvider } = await import('../openai/index.ts');
      return createOpenAIProvider({
        model: preset.model,
        api,
        baseURL: preset.base_url,
        apiKey,
        id: name,
        defaultMaxTokens: OPENAI_DEFAULT_MAX_TOKENS,
        ...limits,
      });
    },
  };
}

/** `openai:MODEL`: Chat Completions on api.openai.com (or OPENAI_BASE_URL). */
export const openaiChatKind = openaiKind('openai', 'chat', 'OpenAI Chat Completions (OPENAI_BASE_URL for a proxy)');
/** `openai-responses:MODEL`: the Responses API, stateless. */
export const openaiResponsesKind = openaiKind(
  'openai-responses',
  'responses',
  'OpenAI Responses API, stateless (store: false)',
);
