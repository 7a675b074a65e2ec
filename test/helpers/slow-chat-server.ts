import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A local OpenAI-compatible server that answers every chat request with one
 * text turn after `delayMs`, so a real `toolmark run` keeps trials in flight
 * long enough to be interrupted.
 */
export async function startSlowChatServer(
  delayMs: number,
  content: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'slow',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Is a process with this id still running? */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What an interrupt test needs in each test: a fresh results folder and a slow server's URL. */
export interface SlowRunFixture {
  readonly out: string;
  readonly url: string;
}

/**
 * A slow chat server and an empty `--out` folder for each test of the
 * calling file (registered with beforeEach/afterEach), closed and removed
 * after it: the set-up every Ctrl-C test over a real `toolmark run` shares.
 */
export function slowRunPerTest(delayMs: number, content: string, prefix: string): SlowRunFixture {
  let out = '';
  let server: Awaited<ReturnType<typeof startSlowChatServer>> | undefined;
  beforeEach(async () => {
    out = mkdtempSync(path.join(tmpdir(), prefix));
    server = await startSlowChatServer(delayMs, content);
  });
  afterEach(async () => {
    await server?.close();
    rmSync(out, { recursive: true, force: true });
  });
  return {
    get out() {
      return out;
    },
    get url() {
      if (server === undefined) throw new Error('slowRunPerTest: used outside a test');
      return server.url;
    },
  };
}
