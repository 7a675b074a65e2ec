/**
 * A fake OpenAI Chat Completions server for the live-efficiency figure, run
 * as its own process so its work does not share the client's event loop.
 * Every answer comes after a fixed delay; in 429 mode the first attempt of
 * every tenth request id is refused at once with `retry-after`. It counts
 * attempts and answers per request id (the id travels in the user message),
 * so the bench can check that nothing was lost or answered twice.
 *
 *   tsx scripts/bench/fake-openai-server.ts --delay-ms 50
 * Prints `listening <port>`; control: POST /bench/mode {"refuse_every":10,
 * "retry_after":"0.2"}, GET /bench/stats, POST /bench/reset.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const delayArg = process.argv.indexOf('--delay-ms');
const DELAY_MS = delayArg === -1 ? 50 : Number(process.argv[delayArg + 1]);

let mode = { refuse_every: 0, retry_after: '0.2' };
let attempts = new Map<string, number>();
let answered = new Map<string, number>();
let refused = 0;
/** TCP connections opened since the last reset: with keep-alive, about the client's concurrency, not its request count. */
let connections = 0;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

function completion(id: string) {
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1_764_000_000,
    model: 'bench-live',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: `answer to ${id}`,
          tool_calls: [
            { id: `call-${id}`, type: 'function', function: { name: 'item__get', arguments: '{"item_id":"I-001"}' } },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 },
  };
}

/** The request id: `req <id>` in the last user message. */
function requestId(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { messages?: { role: string; content?: unknown }[] };
    const last = [...(parsed.messages ?? [])].reverse().find((message) => message.role === 'user');
    const match = typeof last?.content === 'string' ? /req ([\w-]+)/.exec(last.content) : null;
    return match ? match[1]! : null;
  } catch {
    return null;
  }
}

const server = createServer(async (request, response) => {
  const body = await readBody(request);
  if (request.url === '/bench/stats') {
    const duplicates = [...answered].filter(([, count]) => count > 1).map(([id]) => id);
    sendJson(response, 200, {
      ids: answered.size,
      answers: [...answered.values()].reduce((sum, count) => sum + count, 0),
      attempts: [...attempts.values()].reduce((sum, count) => sum + count, 0),
      refused,
      duplicates,
      connections,
      answered_ids: [...answered.keys()],
    });
    return;
  }
  if (request.url === '/bench/reset') {
    attempts = new Map();
    answered = new Map();
    refused = 0;
    connections = 0;
    sendJson(response, 200, { ok: true });
    return;
  }
  if (request.url === '/bench/mode') {
    mode = { ...mode, ...(JSON.parse(body) as Partial<typeof mode>) };
    sendJson(response, 200, mode);
    return;
  }
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
    sendJson(response, 404, { error: { message: 'not found' } });
    return;
  }
  const id = requestId(body);
  if (id === null) {
    sendJson(response, 400, { error: { message: 'no request id in the user message' } });
    return;
  }
  const attempt = (attempts.get(id) ?? 0) + 1;
  attempts.set(id, attempt);
  const number = Number(/(\d+)$/.exec(id)?.[1] ?? NaN);
  if (mode.refuse_every > 0 && attempt === 1 && number % mode.refuse_every === 0) {
    refused += 1;
    sendJson(
      response,
      429,
      { error: { message: 'rate limited (bench)', type: 'rate_limit_exceeded' } },
      { 'retry-after': mode.retry_after },
    );
    return;
  }
  setTimeout(() => {
    answered.set(id, (answered.get(id) ?? 0) + 1);
    sendJson(response, 200, completion(id));
  }, DELAY_MS);
});
server.keepAliveTimeout = 30_000;
server.on('connection', () => {
  connections += 1;
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
