// The worker of cassette-prefetch.ts: reads, checks and indexes the cassettes
// of `paths` exactly as `readCassettes` does in a run's main thread, and
// sends the index back (typed arrays, and the bytes of the cassettes held in
// memory, moved rather than copied).
//
// It imports no zod (cassette-prefetch.ts says why): every module here, and
// every module they import, stays out of the spec's index.
import { parentPort, workerData } from 'node:worker_threads';
import { ConfigError } from '../../src/spec/errors.ts';
import type { PrefetchJob, PrefetchMessage } from './cassette-prefetch.ts';
import { NeedsSchema, checkWithoutSchema } from './check-without-schema.ts';
import { stampFiles } from './cassette-stamps.ts';
import { readCassettes } from './read-cassettes.ts';

const { paths, root, lineShape } = workerData as PrefetchJob;
const withoutSchema = checkWithoutSchema(lineShape);

/** The cassettes read with `checkWithoutSchema`; when a line needs the schema, read again with it. */
async function read(handOver: Map<string, Buffer>): Promise<ReturnType<typeof readCassettes>> {
  try {
    return readCassettes(paths, { root, indexOnly: true, handOver, check: withoutSchema });
  } catch (error) {
    if (!(error instanceof NeedsSchema)) throw error;
    const { checkCassetteLine } = await import('./cassette-line.ts');
    handOver.clear();
    return readCassettes(paths, { root, indexOnly: true, handOver, check: checkCassetteLine });
  }
}

let message: PrefetchMessage;
const before = stampFiles(paths, root);
try {
  // Each file closed once read: the main thread takes the bytes of those held in memory, and opens the others.
  const held = new Map<string, Buffer>();
  const byModel = await read(held);
  const files = stampFiles(paths, root);
  message =
    JSON.stringify(before) === JSON.stringify(files)
      ? { kind: 'read', files, models: [...byModel.values()].map((turns) => turns.snapshot()), held }
      : { kind: 'failed' };
} catch (error) {
  message =
    error instanceof ConfigError
      ? { kind: 'config-error', files: stampFiles(paths, root), issues: error.issues }
      : { kind: 'failed' };
}
const buffers = new Set<ArrayBuffer>();
if (message.kind === 'read') {
  for (const model of message.models) {
    const { keys, columns, hashes } = model.index;
    for (const array of [...keys.columns, keys.units, keys.table, ...columns, hashes])
      buffers.add(array.buffer as ArrayBuffer);
  }
  for (const bytes of message.held.values()) buffers.add(bytes.buffer as ArrayBuffer);
}
parentPort!.postMessage(message, [...buffers]);
