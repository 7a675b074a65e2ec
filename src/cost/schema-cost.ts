import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Bytes and o200k tokens of a payload serialised as compact UTF-8 JSON (SPEC §5). */
export interface SchemaCost {
  bytes: number;
  tokens: number;
}

// The o200k tokenizer is a 200,000-entry table: ~120 ms to load and ~55 MB of
// memory that would stay resident for the rest of the process. Nothing loads
// it until a count is asked for: commands that count a few payloads load it
// in-process on first use (`schemaCost`); a run, which needs one count per
// surface and then runs for minutes, counts in a short-lived worker thread
// whose memory is returned when it exits (`countSchemaCosts`).
const require = createRequire(import.meta.url);
const TOKENIZER = 'gpt-tokenizer/encoding/o200k_base';
type Encode = (text: string) => number[];

let encodeInProcess: Encode | null = null;

/**
 * Costs already counted, by payload object. A surface's payload is one
 * array, sent unchanged on every turn, so its cost is counted once — in the
 * worker when a run counts its surfaces before the trials — and every trial
 * of the surface finds it here, instead of each caller passing counts along.
 * Payloads are treated as immutable once counted (loaded surfaces are).
 */
const counted = new WeakMap<object, SchemaCost>();

function knownCost(payload: unknown): SchemaCost | undefined {
  return typeof payload === 'object' && payload !== null ? counted.get(payload) : undefined;
}

function remember(payload: unknown, cost: SchemaCost): SchemaCost {
  if (typeof payload === 'object' && payload !== null) counted.set(payload, cost);
  return cost;
}

/** The cost of one payload: counted before (`countSchemaCosts`), else counted in this process (the tokenizer is loaded on the first call). */
export function schemaCost(payload: unknown): SchemaCost {
  const known = knownCost(payload);
  if (known !== undefined) return known;
  const text = JSON.stringify(payload);
  encodeInProcess ??= (require(TOKENIZER) as { encode: Encode }).encode;
  return remember(payload, { bytes: Buffer.byteLength(text, 'utf8'), tokens: encodeInProcess(text).length });
}

/** The worker: plain CommonJS, so it needs no TypeScript loader; it gets the tokenizer's resolved path, loads it at once, then counts the texts it is sent. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { encode } = require(workerData.tokenizer);
parentPort.once('message', (texts) => parentPort.postMessage(texts.map((text) => encode(text).length)));
`;

function startWorker(): Worker {
  return new Worker(WORKER_SOURCE, { eval: true, workerData: { tokenizer: require.resolve(TOKENIZER) } });
}

/**
 * A worker started ahead of the count (`startSchemaCounter`). A run knows
 * its surfaces only once the project is loaded, but the worker's start and
 * the tokenizer's ~120 ms load need nothing from it: started when the run
 * starts, they overlap the loading (on the second core) instead of being
 * waited for after it. Unref'd until used, so a run that fails to load
 * never waits for it.
 */
let warm: Worker | null = null;

/** Start the counting worker now; the next `countSchemaCosts` that needs it uses it. */
export function startSchemaCounter(): void {
  if (warm) return;
  warm = startWorker();
  warm.unref();
  // An error before it is used (it cannot count) leaves the count to a fresh worker.
  warm.once('error', () => void (warm = null));
}

/** Stop a started worker that was not used (a run that ended before counting). */
export function stopSchemaCounter(): void {
  void warm?.terminate();
  warm = null;
}

/**
 * The costs of several payloads, counted in a worker thread that exits
 * afterwards, so the tokenizer never stays in the caller's memory. Same
 * numbers as `schemaCost`.
 */
export async function countSchemaCosts(payloads: readonly unknown[]): Promise<SchemaCost[]> {
  const costs = payloads.map(knownCost);
  const uncounted = payloads.filter((_payload, index) => costs[index] === undefined);
  if (uncounted.length === 0) return costs as SchemaCost[];
  const fresh = await countInWorker(uncounted);
  let next = 0;
  return costs.map((cost, index) => cost ?? remember(payloads[index], fresh[next++]!));
}

async function countInWorker(payloads: readonly unknown[]): Promise<SchemaCost[]> {
  const texts = payloads.map((payload) => JSON.stringify(payload));
  const worker = warm ?? startWorker();
  warm = null;
  worker.ref();
  worker.removeAllListeners('error');
  const tokens = await new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`schema token counter exited (${code}) without counting`)));
    worker.postMessage(texts);
  });
  await worker.terminate();
  return texts.map((text, index) => ({ bytes: Buffer.byteLength(text, 'utf8'), tokens: tokens[index]! }));
}
