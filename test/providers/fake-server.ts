/**
 * A tiny HTTP server on 127.0.0.1 (random port) that speaks a provider's wire
 * format from recorded fixtures, so adapters are tested through the real SDKs.
 * It records every request and notes any request body or URL that contains
 * the sentinel key (the key belongs in a header, nowhere else).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';

/** What the server does with one request. */
export type FakeReply =
  | { kind?: 'json'; status?: number; headers?: Record<string, string>; body: unknown; delayMs?: number }
  /** Never answer; the socket stays open until the client gives up. */
  | { kind: 'hang' }
  /** Drop the TCP connection without a response. */
  | { kind: 'reset' }
  /** A 200 JSON response cut off after `keep` characters, then a clean end. */
  | { kind: 'truncate'; body: unknown; keep?: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: any;
}

export type FakeHandler = (request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeServer {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  requests: RecordedRequest[];
  /** Problems seen, e.g. the sentinel key in a body. Tests assert it stays empty. */
  violations: string[];
  close(): Promise<void>;
}

export const SENTINEL_KEY = 'sk-test-SENTINEL-0123456789abcdef';

const FIXTURES = fileURLToPath(new URL('../fixtures/wire/', import.meta.url));

/** A recorded wire-format response body from `test/fixtures/wire/<api>/<name>.json`. */
export function wireFixture(api: 'openai-chat' | 'openai-responses' | 'anthropic', name: string): unknown {
  return JSON.parse(readFileSync(`${FIXTURES}${api}/${name}.json`, 'utf8'));
}

/** Replies in order; the last one repeats for any further request. */
export function sequence(...replies: FakeReply[]): FakeHandler {
  return (_request, index) => replies[Math.min(index, replies.length - 1)]!;
}

export async function startFakeServer(handler: FakeHandler, options: { sentinel?: string } = {}): Promise<FakeServer> {
  const sentinel = options.sentinel ?? SENTINEL_KEY;
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody === '' ? undefined : JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        rawBody,
        body,
      };
      const index = requests.push(recorded) - 1;
      if (rawBody.includes(sentinel)) violations.push(`request ${index} body contains the key`);
      if (recorded.path.includes(sentinel)) violations.push(`request ${index} URL contains the key`);
      let reply: FakeReply;
      try {
        reply = await handler(recorded, index);
      } catch (error) {
        violations.push(`handler failed on request ${index}: ${(error as Error).message}`);
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"message":"fake server handler failed"}}');
        return;
      }
      switch (reply.kind) {
        case 'hang':
          return;
        case 'reset':
          incoming.socket.destroy();
          return;
        case 'truncate': {
          const text = JSON.stringify(reply.body);
          // No content-length: a chunked body that ends early parses as truncated JSON, not a socket error.
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(text.slice(0, reply.keep ?? Math.floor(text.length / 2)));
          return;
        }
        default: {
          if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
          response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          response.end(JSON.stringify(reply.body));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        // Hung requests keep sockets open; close them so the server can stop.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * For a test file: returns a `startFakeServer` whose servers are checked
 * after each test (no violation, e.g. the key in a body) and closed.
 */
export function fakeServerPerTest(): typeof startFakeServer {
  const started: FakeServer[] = [];
  afterEach(async () => {
    const servers = started.splice(0);
    for (const server of servers) await server.close();
    for (const server of servers) expect(server.violations).toEqual([]);
  });
  return async (handler, options) => {
    const server = await startFakeServer(handler, options);
    started.push(server);
    return server;
  };
}
