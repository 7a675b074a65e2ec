// The worker of cassette-prefetch.ts: reads, checks and indexes the cassettes
// of `paths` exactly as `readCassettes` does in a run's main thread, and
// sends the index back (typed arrays, moved rather than copied).
import { parentPort, workerData } from 'node:worker_threads';
import { ConfigError } from '../../src/spec/index.ts';
import { stampFiles, type PrefetchMessage } from './cassette-prefetch.ts';
import { readCassettes } from './index.ts';

const { paths, root } = workerData as { paths: string[]; root: string };
let message: PrefetchMessage;
const before = stampFiles(paths, root);
try {
  // Each file closed once read: the main thread opens its own.
  const byModel = readCassettes(paths, { root, indexOnly: true });
  const files = stampFiles(paths, root);
  message =
    JSON.stringify(before) === JSON.stringify(files)
      ? { kind: 'read', files, models: [...byModel.values()].map((turns) => turns.snapshot()) }
      : { kind: 'failed' };
} catch (error) {
  message =
    error instanceof ConfigError
      ? { kind: 'config-error', files: stampFiles(paths, root), issues: error.issues }
      : { kind: 'failed' };
}
const buffers = new Set<ArrayBuffer>();
if (message.kind === 'read')
  for (const model of message.models) {
    const { keys, columns, hashes } = model.index;
    for (const array of [...keys.columns, keys.units, keys.table, ...columns, hashes])
      buffers.add(array.buffer as ArrayBuffer);
  }
parentPort!.postMessage(message, [...buffers]);
