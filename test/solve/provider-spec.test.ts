import { describe, expect, it } from 'vitest';
import { createProvider, createProviders, parseProviderSpec } from '../../providers/index.ts';
import { ConfigError, ProjectConfig } from '../../src/spec/index.ts';
import { SENTINEL_KEY, startFakeServer, wireFixture } from '../providers/fake-server.ts';

const config = ProjectConfig.parse({
  providers: {
    'local-llama': {
      kind: 'openai-compatible',
      model: 'llama-3',
      base_url: 'http://127.0.0.1:8080/v1',
      api_key_env: 'LOCAL_KEY',
    },
  },
});

describe('parseProviderSpec', () => {
  it.each([
    ['replay', { kind: 'replay', paths: [] }],
    ['replay:a.jsonl,b/*.jsonl', { kind: 'replay', paths: ['a.jsonl', 'b/*.jsonl'] }],
    ['openai:gpt-4.1-mini', { kind: 'openai', model: 'gpt-4.1-mini' }],
    ['openai-responses:gpt-4.1', { kind: 'openai-responses', model: 'gpt-4.1' }],
    [
      'openai-compatible:qwen2.5:7b@http://127.0.0.1:11434/v1',
      { kind: 'openai-compatible', model: 'qwen2.5:7b', baseURL: 'http://127.0.0.1:11434/v1' },
    ],
    ['anthropic:claude-sonnet-4-5', { kind: 'anthropic', model: 'claude-sonnet-4-5' }],
    ['scripted', { kind: 'scripted' }],
    ['local-llama', { kind: 'preset', name: 'local-llama', preset: config.providers['local-llama'] }],
  ])('%s', (text, expected) => {
    expect(parseProviderSpec(text, config.providers)).toEqual({ text, ...expected });
  });

  it.each([
    ['opneai:gpt-4.1', /unknown provider "opneai".*did you mean openai\?/],
    ['openai', /needs a model/],
    ['anthropic:', /needs a model/],
    ['openai-compatible:llama', /base URL/],
    ['local-lama', /did you mean local-llama\?/],
  ])('%s is a ConfigError', (text, message) => {
    expect(() => parseProviderSpec(text, config.providers)).toThrow(ConfigError);
    expect(() => parseProviderSpec(text, config.providers)).toThrow(message);
  });
});

describe('createProvider', () => {
  it('a missing key is a ConfigError before any call, naming the variable', async () => {
    await expect(createProvider(parseProviderSpec('openai:gpt-4.1-mini'), { config, env: {} })).rejects.toThrow(
      /OPENAI_API_KEY/,
    );
    await expect(createProvider(parseProviderSpec('anthropic:claude-sonnet-4-5'), { config, env: {} })).rejects.toThrow(
      /ANTHROPIC_API_KEY/,
    );
    await expect(
      createProvider(parseProviderSpec('local-llama', config.providers), { config, env: {} }),
    ).rejects.toThrow(/LOCAL_KEY/);
  });

  it('makes live providers from a key in the environment, without calling them', async () => {
    const openai = await createProvider(parseProviderSpec('openai:gpt-4.1-mini'), {
      config,
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    expect([openai.id, openai.model]).toEqual(['openai', 'gpt-4.1-mini']);
    const local = await createProvider(parseProviderSpec('local-llama', config.providers), {
      config,
      env: { LOCAL_KEY: 'k' },
    });
    expect([local.id, local.model]).toEqual(['local-llama', 'llama-3']);
    const anthropic = await createProvider(parseProviderSpec('anthropic:claude-sonnet-4-5'), {
      config,
      env: { ANTHROPIC_API_KEY: 'k' },
    });
    expect(anthropic.model).toBe('claude-sonnet-4-5');
  });

  it('scripted answers without a tool call; several replay models need createProviders', async () => {
    const scripted = await createProvider(parseProviderSpec('scripted'), { config, env: {} });
    expect(
      (
        await scripted.propose({
          model: 'scripted',
          system: null,
          messages: [],
          tools: [],
          tool_choice: 'auto',
          settings: {},
        })
      ).tool_calls,
    ).toEqual([]);
    await expect(
      createProviders(parseProviderSpec('replay:missing/*.jsonl'), { config, env: {}, root: '/nonexistent' }),
    ).rejects.toThrow(/no cassette matches/);
  });
});

describe('base URLs and keys from the environment', () => {
  const request = {
    model: 'm',
    system: null,
    messages: [{ role: 'user' as const, content: 'hi' }],
    tools: [],
    tool_choice: 'auto' as const,
    settings: {},
  };

  it('OPENAI_BASE_URL redirects openai:, and the key goes only in the header', async () => {
    const server = await startFakeServer(() => ({ body: wireFixture('openai-chat', 'text') }));
    try {
      const provider = await createProvider(parseProviderSpec('openai:gpt-4.1-mini'), {
        config,
        env: { OPENAI_API_KEY: SENTINEL_KEY, OPENAI_BASE_URL: `${server.url}/v1` },
      });
      const turn = await provider.propose(request);
      expect(turn.tool_calls).toEqual([]);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SENTINEL_KEY}`);
      expect(server.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('openai-compatible never sends OPENAI_API_KEY to a third-party URL', async () => {
    const server = await startFakeServer(() => ({ body: wireFixture('openai-chat', 'text') }));
    try {
      const spec = parseProviderSpec(`openai-compatible:llama@${server.url}/v1`);
      await (await createProvider(spec, { config, env: { OPENAI_API_KEY: SENTINEL_KEY } })).propose(request);
      await (
        await createProvider(spec, {
          config,
          env: { OPENAI_API_KEY: SENTINEL_KEY, OPENAI_COMPATIBLE_API_KEY: 'gateway-key' },
        })
      ).propose(request);
      expect(server.requests.map((seen) => seen.headers.authorization)).toEqual([
        'Bearer not-needed',
        'Bearer gateway-key',
      ]);
    } finally {
      await server.close();
    }
  });
});
