import { createRequire } from 'node:module';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distModule } from '../spec/dist-module.ts';
import { RANKS_MODULE, TOKENIZER_TABLE_IN_DIST, USE_TOKENIZER_TABLE } from './tokenizer-table.ts';

/** Bytes and o200k tokens of a payload serialised as compact UTF-8 JSON (SPEC §5). */
export interface SchemaCost {
  bytes: number;
  tokens: number;
}

// The o200k tokenizer is a 200,000-entry table: ~120 ms to load and ~55 MB of
// memory that would stay resident for the rest of the process. Nothing loads
// it until a count is asked for: commands that count a few payloads load it
// in-process on first use (`schemaCost`); a run, which needs one count per
// surface and then runs for minutes, counts in a short-lived child process
// whose memory is returned when it exits (`countSchemaCosts`).
const require = createRequire(import.meta.url);
const TOKENIZER = 'gpt-tokenizer/encoding/o200k_base';
type Encode = (text: string) => number[];

let encodeInProcess: Encode | null = null;

/**
 * Costs already counted, by payload object. A surface's payload is one
 * array, sent unchanged on every turn, so its cost is counted once — in the
 * counter process when a run counts its surfaces before the trials — and every trial
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

/**
 * The counter: a child node process, not a worker thread. A worker's isolate
 * is gone when it exits, but what V8 allocated with malloc on its thread —
 * the ~27 MB of parser memory of the tokenizer's 200,000-entry array literal —
 * stays in that thread's glibc arena, resident in this process until it
 * exits: on a 100,000-task run, ~27 MB of the peak through the trials and
 * the reports. A child process returns everything when it exits. Plain
 * CommonJS, so it needs no TypeScript loader: it gets the tokenizer's
 * resolved path (and, compiled, the prebuilt rank table: tokenizer-table.ts),
 * loads it at once, then reads the texts (one JSON array on stdin) and
 * writes their counts (one JSON array on stdout).
 */
const COUNTER_SOURCE = `
const [tokenizer, ranksModule, table] = process.argv.slice(1);
if (table) {${USE_TOKENIZER_TABLE}}
const { encode } = require(tokenizer);
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const texts = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  process.stdout.write(JSON.stringify(texts.map((text) => encode(text).length)));
});
`;

interface Counter {
  child: ChildProcess;
  /** The counts it wrote, or why it could not count. */
  result: Promise<number[]>;
}

/** The prebuilt rank table: in dist/ when compiled (`npm run build`), else none. */
function tokenizerTable(): string {
  const table = distModule(import.meta.url, TOKENIZER_TABLE_IN_DIST);
  return table === null ? '' : fileURLToPath(table);
}

function startCounter(table = tokenizerTable()): Counter {
  const args = [require.resolve(TOKENIZER), require.resolve(RANKS_MODULE), table];
  // No execArgv (a --cpu-prof or --inspect of this process is not the counter's); the environment is inherited.
  const child = spawn(process.execPath, ['-e', COUNTER_SOURCE, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  // A counter stopped or failing before it is written to must not fail the write (EPIPE).
  child.stdin!.on('error', () => {});
  const result = new Promise<number[]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const text = Buffer.concat(out).toString('utf8');
      if (code === 0 && text !== '') return resolve(JSON.parse(text) as number[]);
      const why = Buffer.concat(err).toString('utf8').trim().split('\n').at(-1);
      reject(new Error(`schema token counter exited (${signal ?? code}) without counting${why ? `: ${why}` : ''}`));
    });
  });
  // Unhandled until used: a counter stopped unused (or failing unused) is no error of anyone's.
  result.catch(() => {});
  return { child, result };
}

/** Whether the counter (the process and its pipes: sockets) keeps the event loop alive. */
function holdOpen(counter: Counter, hold: boolean): void {
  const { child } = counter;
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as ({ ref(): void; unref(): void } | null)[]) {
    if (hold) handle?.ref();
    else handle?.unref();
  }
}

/**
 * A counter started ahead of the count (`startSchemaCounter`). A run knows
 * its surfaces only once the project is loaded, but the counter's start and
 * the tokenizer's ~120 ms load need nothing from it: started when the run
 * starts, they overlap the loading (on the second core) instead of being
 * waited for after it. Unref'd until used, so a run that fails to load
 * never waits for it.
 */
let warm: Counter | null = null;

/**
 * Start the counter now; the next `countSchemaCosts` that needs it uses it.
 * `table`: the rank table it loads the tokenizer from (tests; default: dist/'s).
 */
export function startSchemaCounter({ table }: { table?: string } = {}): void {
  if (warm) return;
  const counter = startCounter(table);
  holdOpen(counter, false);
  warm = counter;
  // One that failed before it is used (it cannot count) leaves the count to a fresh one.
  counter.result.catch(() => {
    if (warm === counter) warm = null;
  });
}

/** Stop a started counter that was not used (a run that ended before counting). */
export function stopSchemaCounter(): void {
  warm?.child.kill();
  warm = null;
}

/**
 * The costs of several payloads, counted in a child process that exits
 * afterwards, so the tokenizer never stays in the caller's memory. Same
 * numbers as `schemaCost`.
 */
export async function countSchemaCosts(payloads: readonly unknown[]): Promise<SchemaCost[]> {
  const costs = payloads.map(knownCost);
  const uncounted = payloads.filter((_payload, index) => costs[index] === undefined);
  if (uncounted.length === 0) return costs as SchemaCost[];
  const fresh = await countInChild(uncounted);
  let next = 0;
  return costs.map((cost, index) => cost ?? remember(payloads[index], fresh[next++]!));
}

async function countInChild(payloads: readonly unknown[]): Promise<SchemaCost[]> {
  const texts = payloads.map((payload) => JSON.stringify(payload));
  const counter = warm ?? startCounter();
  warm = null;
  holdOpen(counter, true);
  counter.child.stdin!.end(JSON.stringify(texts));
  const tokens = await counter.result;
  return texts.map((text, index) => ({ bytes: Buffer.byteLength(text, 'utf8'), tokens: tokens[index]! }));
}
