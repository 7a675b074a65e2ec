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

/** The cost of one payload, counted in this process (the tokenizer is loaded on the first call). */
export function schemaCost(payload: unknown): SchemaCost {
  const text = JSON.stringify(payload);
  encodeInProcess ??= (require(TOKENIZER) as { encode: Encode }).encode;
  return { bytes: Buffer.byteLength(text, 'utf8'), tokens: encodeInProcess(text).length };
}

/** The worker: plain CommonJS, so it needs no TypeScript loader; it gets the tokenizer's resolved path. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { encode } = require(workerData.tokenizer);
parentPort.postMessage(workerData.texts.map((text) => encode(text).length));
`;

/**
 * The costs of several payloads, counted in a worker thread that exits
 * afterwards, so the tokenizer never stays in the caller's memory. Same
 * numbers as `schemaCost`.
 */
export async function countSchemaCosts(payloads: readonly unknown[]): Promise<SchemaCost[]> {
  if (payloads.length === 0) return [];
  const texts = payloads.map((payload) => JSON.stringify(payload));
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { tokenizer: require.resolve(TOKENIZER), texts } });
  const tokens = await new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`schema token counter exited (${code}) without counting`)));
  });
  await worker.terminate();
  return texts.map((text, index) => ({ bytes: Buffer.byteLength(text, 'utf8'), tokens: tokens[index]! }));
}
