import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { main } from '../../src/cli/main.ts';
import { loadProject } from '../../src/load/index.ts';
import { runTrial } from '../../src/solve/index.ts';

// Streamable HTTP through the official SDK on both ends, on 127.0.0.1: a
// server built with the SDK's McpServer that wants a bearer token.
const TOKEN = 'test-token-not-a-secret';
let http: Server;
let url: string;
let root: string;
const seen: string[] = [];

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'clock', version: '1.0.0' });
  server.registerTool(
    'get_time',
    { description: 'The time in a city.', inputSchema: { city: z.string() }, annotations: { readOnlyHint: true } },
    async ({ city }) =>
      city === 'Atlantis'
        ? { isError: true, content: [{ type: 'text', text: 'Unknown city Atlantis.' }] }
        : { content: [{ type: 'text', text: `12:00 in ${city}` }] },
  );
  return server;
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

beforeAll(async () => {
  http = createServer(async (request, response) => {
    seen.push(String(request.headers.authorization));
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401).end();
      return;
    }
    // Stateless: a server and a transport per request, as the SDK documents.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServer();
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, await body(request));
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const cache = resolve(import.meta.dirname, '../../node_modules/.cache');
  await mkdir(cache, { recursive: true });
  root = await mkdtemp(join(cache, 'toolmark-http-'));
});
afterAll(async () => {
  http.closeAllConnections();
  await new Promise((done) => http.close(done));
  await rm(root, { recursive: true, force: true });
});

describe('an MCP domain over streamable HTTP', () => {
  it('imports with a header taken from the environment, writes no secret, and calls through the registry', async () => {
    process.env.CLOCK_TOKEN = TOKEN;
    try {
      // A literal header value would be written to disk: refused.
      expect(
        await main([
          'import',
          'mcp',
          '--name',
          'clock',
          '--root',
          root,
          '--url',
          url,
          '--header',
          `Authorization=Bearer ${TOKEN}`,
        ]),
      ).toBe(2);
      expect(
        await main([
          'import',
          'mcp',
          '--name',
          'clock',
          '--root',
          root,
          '--url',
          url,
          '--header',
          'Authorization=Bearer {env:CLOCK_TOKEN}',
        ]),
      ).toBe(0);
      const written = await Promise.all(
        ['domain.yaml', 'tools.json', 'surfaces/imported.yaml'].map((file) =>
          readFile(join(root, 'suites/clock', file), 'utf8'),
        ),
      );
      for (const text of written) expect(text).not.toContain(TOKEN);
      expect(written[0]).toContain('Authorization: Bearer {env:CLOCK_TOKEN}');
      await mkdir(join(root, 'suites/clock/tasks'), { recursive: true });
      await writeFile(
        join(root, 'suites/clock/tasks/train.yaml'),
        'tasks:\n  - id: time\n    kind: must-call\n    messages: [{ role: user, content: "Time in Lyon?" }]\n    actor: { permissions: [clock:read] }\n    expect: { action: clock.get_time, args: { city: Lyon } }\n',
      );
      const domain = (await loadProject(root)).domains[0]!;
      const provider = new ScriptedProvider([
        callTurn('get_time', { city: 'Atlantis' }),
        callTurn('get_time', { city: 'Lyon' }, 'c2'),
        textTurn('noon'),
      ]);
      const record = await runTrial({
        provider,
        domain: domain.domain,
        surface: domain.surfaces[0]!,
        task: domain.tasks[0]!,
        trial: 0,
      });
      await domain.domain.close?.();
      expect(record.status).toBe('completed');
      expect(record.calls.map((call) => call.outcome)).toEqual([
        { ok: false, error: expect.objectContaining({ code: 'tool_failed', message: 'Unknown city Atlantis.' }) },
        { ok: true, output: '12:00 in Lyon', replayed: false },
      ]);
    } finally {
      delete process.env.CLOCK_TOKEN;
    }
    // Every request carried the header read from the environment; the refused import sent none.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((header) => header === `Bearer ${TOKEN}`)).toBe(true);
  }, 180_000);
});
