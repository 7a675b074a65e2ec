import { ConfigError, closest } from '../src/spec/index.ts';
import type { ProjectConfig, Provider, ProviderPreset } from '../src/spec/index.ts';

/** A parsed `--provider` value: which adapter, with what model and options. */
export type ProviderSpec =
  | { kind: 'replay'; text: string; paths: string[] }
  | { kind: 'openai'; text: string; model: string }
  | { kind: 'openai-responses'; text: string; model: string }
  | { kind: 'openai-compatible'; text: string; model: string; baseURL: string }
  | { kind: 'anthropic'; text: string; model: string }
  | { kind: 'scripted'; text: string }
  | { kind: 'preset'; text: string; name: string; preset: ProviderPreset };

/** Cassettes replayed by a bare `replay`: every domain's shipped cassettes. */
export const DEFAULT_CASSETTES = 'suites/*/cassettes/*.jsonl';

type Parser = (rest: string, text: string) => ProviderSpec;

function needModel(kind: string, rest: string, text: string): string {
  if (rest.trim() === '') throw bad(text, `provider "${kind}" needs a model`, `${kind}:MODEL`);
  return rest.trim();
}

/** One parser per provider kind, looked up by the text before the first colon. */
const PARSERS: Record<string, Parser> = {
  replay: (rest, text) => ({ kind: 'replay', text, paths: rest.split(',').map((part) => part.trim()).filter(Boolean) }),
  openai: (rest, text) => ({ kind: 'openai', text, model: needModel('openai', rest, text) }),
  'openai-responses': (rest, text) => ({ kind: 'openai-responses', text, model: needModel('openai-responses', rest, text) }),
  'openai-compatible': (rest, text) => {
    const at = rest.lastIndexOf('@');
    const model = at > 0 ? rest.slice(0, at).trim() : '';
    const baseURL = at > 0 ? rest.slice(at + 1).trim() : '';
    if (!model || !/^https?:\/\//.test(baseURL)) throw bad(text, 'an OpenAI-compatible provider needs a model and a base URL', 'openai-compatible:MODEL@http://host:port/v1');
    return { kind: 'openai-compatible', text, model, baseURL };
  },
  anthropic: (rest, text) => ({ kind: 'anthropic', text, model: needModel('anthropic', rest, text) }),
  scripted: (_rest, text) => ({ kind: 'scripted', text }),
};

function bad(text: string, message: string, expected: string, suggestion?: string): ConfigError {
  return new ConfigError({ file: '--provider', field: text, message, expected, suggestion });
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
  const parser = PARSERS[head];
  if (parser) return parser(rest, trimmed);
  if (colon === -1 && presets[trimmed]) return { kind: 'preset', text: trimmed, name: trimmed, preset: presets[trimmed]! };
  const known = [...Object.keys(PARSERS), ...Object.keys(presets)];
  throw bad(trimmed, `unknown provider "${head}"`, `one of ${known.join(', ')} (a preset name comes from toolmark.config.yaml providers:)`, closest(head, known));
}

export interface CreateProviderContext {
  config: ProjectConfig;
  /** Where keys come from (process.env in the CLI); never from files. */
  env: Record<string, string | undefined>;
  /** Base for relative cassette paths. */
  root?: string;
  allowStale?: boolean;
}

const KEY_VARIABLES = { openai: 'OPENAI_API_KEY', 'openai-responses': 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', 'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY' } as const;

function requireKey(env: CreateProviderContext['env'], variable: string, text: string): string {
  const key = env[variable];
  if (!key) throw bad(text, `no API key: set the environment variable ${variable}`, `${variable} in the environment (keys are never read from files)`);
  return key;
}

/**
 * Make the providers a spec stands for. Replay yields one provider per
 * recorded model; every other kind yields one. Adapters are imported
 * lazily, so a replay run never loads an SDK. A missing key is a
 * ConfigError here, before any call.
 */
export async function createProviders(spec: ProviderSpec, context: CreateProviderContext): Promise<Provider[]> {
  const { env } = context;
  switch (spec.kind) {
    case 'replay': {
      const { createReplayProviders } = await import('./replay/index.ts');
      const paths = spec.paths.length > 0 ? spec.paths : [DEFAULT_CASSETTES];
      return createReplayProviders(paths, { root: context.root ?? process.cwd(), allowStale: context.allowStale });
    }
    case 'scripted': {
      const { ScriptedProvider } = await import('./scripted.ts');
      return [new ScriptedProvider(() => ({ text: 'scripted provider: no script given, so no tool call.' }))];
    }
    case 'openai':
    case 'openai-responses': {
      const apiKey = requireKey(env, KEY_VARIABLES[spec.kind], spec.text);
      const { createOpenAIProvider } = await import('./openai/index.ts');
      // OPENAI_BASE_URL points the official provider at a proxy or gateway.
      const baseURL = env.OPENAI_BASE_URL || undefined;
      return [createOpenAIProvider({ model: spec.model, api: spec.kind === 'openai' ? 'chat' : 'responses', baseURL, apiKey, id: spec.kind })];
    }
    case 'openai-compatible': {
      // Local servers (vLLM, Ollama, llama.cpp) usually need no key. The OpenAI
      // key is never sent to a third-party URL: hosted gateways (OpenRouter)
      // take theirs from OPENAI_COMPATIBLE_API_KEY.
      const apiKey = env.OPENAI_COMPATIBLE_API_KEY || 'not-needed';
      const { createOpenAIProvider } = await import('./openai/index.ts');
      return [createOpenAIProvider({ model: spec.model, api: 'chat', baseURL: spec.baseURL, apiKey, id: 'openai-compatible' })];
    }
    case 'anthropic': {
      const apiKey = requireKey(env, KEY_VARIABLES.anthropic, spec.text);
      const { createAnthropicProvider } = await import('./anthropic/index.ts');
      return [createAnthropicProvider({ model: spec.model, baseURL: env.ANTHROPIC_BASE_URL || undefined, apiKey })];
    }
    case 'preset':
      return [await createPreset(spec.name, spec.preset, context)];
  }
}

async function createPreset(name: string, preset: ProviderPreset, context: CreateProviderContext): Promise<Provider> {
  const variable = preset.api_key_env ?? (preset.kind === 'openai-compatible' ? undefined : KEY_VARIABLES[preset.kind]);
  const apiKey = variable ? requireKey(context.env, variable, name) : context.env.OPENAI_COMPATIBLE_API_KEY || 'not-needed';
  const limits = { timeoutMs: preset.timeout_ms, maxRetries: preset.max_retries, requestsPerMinute: preset.requests_per_minute, concurrency: preset.concurrency };
  if (preset.kind === 'anthropic') {
    const { createAnthropicProvider } = await import('./anthropic/index.ts');
    // The preset name is the provider id, as for OpenAI presets: two presets of one model stay two providers.
    return createAnthropicProvider({ model: preset.model, baseURL: preset.base_url, apiKey, id: name, ...limits });
  }
  const { createOpenAIProvider } = await import('./openai/index.ts');
  return createOpenAIProvider({ model: preset.model, api: preset.kind === 'openai-responses' ? 'responses' : 'chat', baseURL: preset.base_url, apiKey, id: name, ...limits });
}

/** The single provider a spec stands for; a replay spec holding several models is a ConfigError here. */
export async function createProvider(spec: ProviderSpec, context: CreateProviderContext): Promise<Provider> {
  const providers = await createProviders(spec, context);
  if (providers.length !== 1) {
    throw bad(spec.text, `this provider stands for ${providers.length} models (${providers.map((provider) => provider.model).join(', ')})`, 'cassettes of one model (or use createProviders)');
  }
  return providers[0]!;
}
