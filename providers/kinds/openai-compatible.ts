import { COMPATIBLE_DEFAULT_MAX_TOKENS } from '../http/max-tokens.ts';
import { badSpec, presetKey, type PresetProviderKind } from './kind.ts';

export type CompatibleSpec = { kind: 'openai-compatible'; text: string; model: string; baseURL: string };

const KEY = 'OPENAI_COMPATIBLE_API_KEY';

/**
 * `MODEL@URL` → model and base URL. The split is at the first `@` that
 * starts a URL (`@http://`, `@https://`): the model may hold colons
 * (`qwen2.5:7b`) and even an `@`, and the URL may hold credentials
 * (`http://user:pass@host/v1`, whose `@` a split on the last one would take).
 */
export function parseCompatibleTarget(rest: string, text: string): { model: string; baseURL: string } {
  const match = /^(.*?)@(https?:\/\/.*)$/is.exec(rest.trim());
  const model = match?.[1]!.trim() ?? '';
  const baseURL = match?.[2]!.trim() ?? '';
  if (!model || !/^https?:\/\/[^/\s]/.test(baseURL))
    throw badSpec(
      text,
      'an OpenAI-compatible provider needs a model and a base URL',
      'openai-compatible:MODEL@http://host:port/v1',
    );
  return { model, baseURL };
}

/**
 * `openai-compatible:MODEL@URL`: Chat Completions on another server. Local
 * servers (vLLM, Ollama, llama.cpp) usually need no key. The OpenAI key is
 * never sent to a third-party URL: hosted gateways (OpenRouter) take theirs
 * from OPENAI_COMPATIBLE_API_KEY.
 */
export const openaiCompatibleKind: PresetProviderKind<CompatibleSpec> = {
  kind: 'openai-compatible',
  usage: 'openai-compatible:MODEL@URL',
  summary:
    'any OpenAI-compatible Chat server: llama.cpp, vLLM, Ollama, gateways (key optional: OPENAI_COMPATIBLE_API_KEY)',
  keyVariable: null,
  offline: false,
  defaultMaxTokens: COMPATIBLE_DEFAULT_MAX_TOKENS,
  parse: (rest, text) => ({ kind: 'openai-compatible', text, ...parseCompatibleTarget(rest, text) }),
  async create(spec, context) {
    const apiKey = context.env[KEY] || 'not-needed';
    const { createOpenAIProvider } = await import('../openai/index.ts');
    return [
      createOpenAIProvider({
        model: spec.model,
        api: 'chat',
        baseURL: spec.baseURL,
        apiKey,
        id: 'openai-compatible',
        defaultMaxTokens: COMPATIBLE_DEFAULT_MAX_TOKENS,
      }),
    ];
  },
  async createPreset(name, preset, context, limits) {
    const apiKey = presetKey(name, preset, null, context, context.env[KEY] || 'not-needed');
    const { createOpenAIProvider } = await import('../openai/index.ts');
    return createOpenAIProvider({
      model: preset.model,
      api: 'chat',
      baseURL: preset.base_url,
      apiKey,
      id: name,
      defaultMaxTokens: COMPATIBLE_DEFAULT_MAX_TOKENS,
      ...limits,
    });
  },
};
