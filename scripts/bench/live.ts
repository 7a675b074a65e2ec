import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import type { ModelRequest, ModelTurn } from '../../src/spec/index.ts';

/**
 * Figure 2: the openai adapter (real SDK, real retries and gate) against the
 * fake server in a child process. Efficiency = ideal wall time
 * (requests × delay / concurrency) over the measured one.
 */

export interface LiveResult {
  requests: number;
  concurrency: number;
  delayMs: number;
  wallMs: number;
  /** CPU time of this (client) process during the measurement. */
  clientCpuMs: number;
  idealMs: number;
  efficiency: number;
  /** Requests that failed after the adapter's retries (must be 0). */
  failed: number;
  /** Results whose text does not name their own request id, or ids answered twice (must be 0). */
  mismatched: number;
  /** `connections`: TCP connections the client opened during the measurement (keep-alive: about `concurrency`). */
  server: {
    ids: number;
    answers: number;
    attempts: number;
    refused: number;
    duplicates: number;
    missing: number;
    connections: number;
  };
}

const SERVER = fileURLToPath(new URL('./fake-openai-server.ts', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** Start the fake server; resolves with its base URL and a stop function. */
export async function startFakeServer(
  delayMs: number,
): Promise<{ url: string; stop: () => void; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, '--delay-ms', String(delayMs)], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench: fake server exited (${code})`)));
    lines.on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM'), child };
}

async function control(url: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

function request(id: string): ModelRequest {
  return {
    model: 'bench-live',
    system: null,
    messages: [{ role: 'user', content: `What is the status of item I-001? (req ${id})` }],
    tools: [
      {
        name: 'item.get',
        description: 'Read one item by ID.',
        parameters: {
          type: 'object',
          properties: { item_id: { type: 'string' } },
          required: ['item_id'],
          additionalProperties: false,
        },
        strict: true,
      },
    ],
    tool_choice: 'auto',
    settings: {},
  };
}

/**
 * Send `count` requests at once through one adapter instance capped at
 * `concurrency`, and check every one completed exactly once.
 */
export async function measureLive(options: {
  url: string;
  count: number;
  concurrency: number;
  delayMs: number;
  prefix: string;
  refuseEvery?: number;
}): Promise<LiveResult> {
  const provider = createOpenAIProvider({
    model: 'bench-live',
    api: 'chat',
    baseURL: `${options.url}/v1`,
    apiKey: 'sk-bench-local-not-a-key',
    concurrency: options.concurrency,
    maxRetries: 3,
  });
  // Warm-up (connections, JIT) on ids the measurement does not use.
  await control(options.url, '/bench/mode', { refuse_every: 0 });
  await Promise.all(
    Array.from({ length: options.concurrency * 8 }, (_unused, index) => provider.propose(request(`warm-${index}`))),
  );
  await control(options.url, '/bench/reset', {});
  await control(options.url, '/bench/mode', { refuse_every: options.refuseEvery ?? 0, retry_after: '0.2' });

  const ids = Array.from({ length: options.count }, (_unused, index) => `${options.prefix}-${index}`);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const settled = await Promise.allSettled(ids.map((id) => provider.propose(request(id))));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);

  const seen = new Set<string>();
  let failed = 0;
  let mismatched = 0;
  settled.forEach((result, index) => {
    if (result.status === 'rejected') {
      failed += 1;
      return;
    }
    const turn: ModelTurn = result.value;
    const id = /answer to ([\w-]+)/.exec(turn.text ?? '')?.[1];
    if (id !== ids[index] || seen.has(id) || turn.tool_calls[0]?.name !== 'item.get') mismatched += 1;
    if (id) seen.add(id);
  });
  const stats = await control(options.url, '/bench/stats');
  const answeredIds = new Set<string>(stats.answered_ids);
  const idealMs = (options.count * options.delayMs) / options.concurrency;
  return {
    requests: options.count,
    concurrency: options.concurrency,
    delayMs: options.delayMs,
    wallMs,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    idealMs,
    efficiency: idealMs / wallMs,
    failed,
    mismatched,
    server: {
      ids: stats.ids,
      answers: stats.answers,
      attempts: stats.attempts,
      refused: stats.refused,
      duplicates: stats.duplicates.length,
      missing: ids.filter((id) => !answeredIds.has(id)).length,
      connections: stats.connections,
    },
  };
}
