import { fstatSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { CassetteLine, ConfigError, shapeCheckSource } from '../../src/spec/index.ts';
import type { ConfigIssue, ShapeCheckSource } from '../../src/spec/index.ts';
import { openCassette } from './cassette-file.ts';
import { CassetteSource, HOLD_CASSETTE_BYTES } from './cassette-source.ts';
import { stampFiles, unchanged, type FileStamp } from './cassette-stamps.ts';
import { RecordedTurns, type RecordedTurnsSnapshot } from './recorded-turns.ts';
import { distModule } from '../../src/spec/dist-module.ts';

/**
 * Reading and indexing a run's cassettes on the second core while the
 * project loads.
 *
 * Why: every line of a cassette is parsed and checked before a run starts
 * (cassette-file.ts) — ~0.15 s of main-thread time for 20,000 lines, ~1 s
 * for 200,000 — and nothing in it needs the loaded project. A run starts a
 * worker on the cassettes of its replay provider (`prefetchCassettes`) at
 * once; the worker does exactly what `readCassettes` does here and sends
 * the index back as typed arrays, with the bytes of the cassettes held in
 * memory (moved, not copied: the main thread reads them no more).
 * `createReplayProviders` takes it when
 * asked for the same paths — if every file is still the one the worker
 * read (size and modification time) — and otherwise reads them itself, so
 * a bad line is still reported with its file:line, by the same code.
 *
 * The worker imports neither zod nor the spec's schemas (~130 ms of its
 * start, which the run's pre-flight waited for): it checks each line with
 * the structural check `shapeCheck` generates from `CassetteLine`, made
 * here and sent as source (`shapeCheckSource`), and imports the schema only
 * when a line fails that check (cassette-worker.ts).
 */

export type { FileStamp } from './cassette-stamps.ts';

/** What the worker is given. */
export interface PrefetchJob {
  paths: string[];
  root: string;
  /** `CassetteLine`'s structural check (without its refinement: check-without-schema.ts). */
  lineShape: ShapeCheckSource;
}

export type PrefetchMessage =
  | {
      kind: 'read';
      files: FileStamp[];
      models: RecordedTurnsSnapshot[];
      /** The files held in memory, as the worker read them (moved, not copied): the main thread reads them no more. */
      held: Map<string, Uint8Array>;
    }
  | { kind: 'config-error'; files: FileStamp[]; issues: ConfigIssue[] }
  | { kind: 'failed' };

interface Prefetch {
  key: string;
  worker: Worker;
  done: Promise<void>;
  /** Undefined until the worker answers; null when it failed. */
  message: PrefetchMessage | null | undefined;
}

let pending: Prefetch | null = null;

const keyOf = (paths: readonly string[], root: string) => JSON.stringify([paths, root]);

/**
 * Cassettes smaller than this together are read where they are used: a
 * worker's start (~0.1 s of CPU, loading the spec's modules) costs more
 * than reading ~3,000 lines, and a run's parallel start-up is for nothing.
 */
export const PREFETCH_MIN_BYTES = 2 * 1024 * 1024;

/** Start reading the cassettes of `paths` (relative to `root`) in a worker, for a later `createReplayProviders`. */
export function prefetchCassettes(
  paths: readonly string[],
  root: string,
  { minBytes = PREFETCH_MIN_BYTES }: { minBytes?: number } = {},
): void {
  dropPrefetchedCassettes();
  if (stampFiles(paths, root).reduce((total, { size }) => total + Math.max(size, 0), 0) < minBytes) return;
  const job: PrefetchJob = { paths: [...paths], root, lineShape: shapeCheckSource(CassetteLine) };
  const worker = new Worker(workerScript(), { workerData: job });
  // Never what keeps a process alive: a run that fails to load exits without waiting for it.
  worker.unref();
  const entry: Prefetch = { key: keyOf(paths, root), worker, message: undefined, done: Promise.resolve() };
  entry.done = new Promise<void>((resolve) => {
    const settle = (message: PrefetchMessage | null) => {
      entry.message ??= message;
      resolve();
    };
    worker.once('message', (message: PrefetchMessage) => settle(message));
    worker.once('error', () => settle(null));
    worker.once('exit', () => settle(null));
  });
  pending = entry;
}

/**
 * The worker's module. A source checkout runs its TypeScript through tsx,
 * in the worker too. Compiled, this module is bundled into a chunk under
 * dist/src/chunks/ (scripts/build.js), so the worker is found from dist/
 * (`distModule`): dist/providers/replay/cassette-worker.js.
 */
function workerScript(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('./cassette-worker-source.mjs', here);
  return distModule(here, 'providers/replay/cassette-worker.js') ?? new URL('./cassette-worker.js', here);
}

/** Wait until a prefetch of these paths has its answer (nothing to wait for when none was started for them). */
export async function prefetchedCassettes(paths: readonly string[], root: string): Promise<void> {
  const entry = pending;
  if (entry === null || entry.key !== keyOf(paths, root)) return;
  entry.worker.ref();
  await entry.done;
}

/** Forget a prefetch nobody took (a run that stopped before its providers were made). */
export function dropPrefetchedCassettes(): void {
  void pending?.worker.terminate();
  pending = null;
}

/**
 * The cassettes of `paths` as the worker read them, by recorded model; null
 * when none was prefetched for them, the worker has not answered or failed,
 * or a file changed since — the caller then reads them itself.
 */
export function takePrefetchedCassettes(
  paths: readonly string[],
  options: { root: string; holdUpTo?: number },
): Map<string, RecordedTurns> | null {
  const entry = pending;
  if (entry === null || entry.key !== keyOf(paths, options.root) || !entry.message) return null;
  pending = null;
  void entry.worker.terminate();
  const { message } = entry;
  if (message.kind === 'failed' || !unchanged(message.files)) return null;
  if (message.kind === 'config-error') throw new ConfigError(message.issues);
  const sources = new Map<string, CassetteSource>();
  const holdUpTo = options.holdUpTo ?? HOLD_CASSETTE_BYTES;
  try {
    for (const { file, size, mtimeMs } of message.files) {
      const held = message.held.get(file);
      if (held !== undefined && held.length <= holdUpTo) {
        sources.set(file, new CassetteSource(file, Buffer.from(held.buffer, held.byteOffset, held.byteLength)));
        continue;
      }
      const fd = openCassette(file);
      const source = new CassetteSource(file, fd);
      sources.set(file, source);
      const stat = fstatSync(fd);
      if (stat.size !== size || stat.mtimeMs !== mtimeMs) throw new Changed();
      source.settle(size, holdUpTo);
    }
  } catch (error) {
    for (const source of sources.values()) source.close();
    if (error instanceof Changed) return null;
    throw error;
  }
  return new Map(
    message.models.map((model) => [model.model, RecordedTurns.restore(model, (file) => sources.get(file)!)]),
  );
}

class Changed extends Error {}
