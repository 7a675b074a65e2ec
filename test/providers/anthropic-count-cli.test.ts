import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SENTINEL_KEY, startFakeServer } from './fake-server.ts';

describe('toolmark tokens --provider anthropic:MODEL', () => {
  it("adds the provider's own count (with tools minus without) per tool and per surface", async () => {
    // The fake count API charges 40 tokens for the probe message and 100 per tool.
    const server = await startFakeServer((request) => ({
      body: { input_tokens: 40 + 100 * (request.body?.tools?.length ?? 0) },
    }));
    try {
      const result = await runCli(
        ['tokens', '--domain', 'tickets', '--surface', 'typed-v2', '--provider', 'anthropic:claude-x', '--json'],
        {
          env: { ANTHROPIC_API_KEY: SENTINEL_KEY, ANTHROPIC_BASE_URL: server.url },
        },
      );
      expect(result.code, result.stderr).toBe(0);
      const rows = JSON.parse(result.stdout).rows as { tool: string | null; provider_tokens: number; tokens: number }[];
      expect(rows.filter((row) => row.tool !== null).map((row) => row.provider_tokens)).toEqual([
        100, 100, 100, 100, 100,
      ]);
      expect(rows.find((row) => row.tool === null)!.provider_tokens).toBe(500);
      // o200k figures are still there beside the provider's.
      expect(rows.every((row) => row.tokens > 0)).toBe(true);
      expect(server.requests.every((request) => request.path === '/v1/messages/count_tokens')).toBe(true);
      expect(server.requests.every((request) => request.body.model === 'claude-x')).toBe(true);
      expect(server.violations).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(SENTINEL_KEY);
    } finally {
      await server.close();
    }
  });

  it('refuses a provider without a count API before any call (exit 2)', async () => {
    const result = await runCli(['tokens', '--provider', 'openai:gpt-4.1-mini'], {
      env: { OPENAI_API_KEY: SENTINEL_KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no token-count API');
    expect(result.stderr).not.toContain(SENTINEL_KEY);
  });
});
