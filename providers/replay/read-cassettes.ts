import path from 'node:path';
// Never zod, nor the spec's index: the cassette worker reads with this module (cassette-prefetch.ts).
import { ConfigError } from '../../src/spec/errors.ts';
import { openCassette, walkCassette, type LineCheck } from './cassette-file.ts';
import { CassetteSource } from './cassette-source.ts';
import { expandGlob } from './glob.ts';
import { RecordedTurns } from './recorded-turns.ts';

/**
 * Read, check (`check`: cassette-line.ts's `checkCassetteLine`, or the
 * cassette worker's) and index the cassettes of `paths`, file after file,
 * by recorded model.
 */
export function readCassettes(
  paths: readonly string[],
  options: {
    root: string;
    check: LineCheck;
    holdUpTo?: number;
    /** A worker's read: the files read from their descriptors are closed once indexed (nothing is read from them later). */
    indexOnly?: boolean;
    /** Given: gets the bytes of every file held in memory, by file name (a worker moves them to the main thread). */
    handOver?: Map<string, Buffer>;
  },
): Map<string, RecordedTurns> {
  const byModel = new Map<string, RecordedTurns>();
  for (const pattern of paths) {
    const files = expandGlob(pattern, options.root);
    if (files.length === 0) {
      throw new ConfigError({
        file: path.resolve(options.root, pattern),
        message: 'no cassette matches this path',
        expected: 'one or more .jsonl cassette files',
      });
    }
    for (const file of files) {
      // Lines are checked as they are read, and indexed without being kept (cassette-index.ts).
      const fd = openCassette(file);
      const source = new CassetteSource(file, fd);
      try {
        // A cassette held in memory is read once, whole, and its lines are walked there.
        const held = source.settle(undefined, options.holdUpTo);
        if (held !== null) options.handOver?.set(file, held);
        walkCassette(
          held ?? fd,
          file,
          (line, lineNumber, bytes, written) => {
            let turns = byModel.get(line.model);
            if (!turns) byModel.set(line.model, (turns = new RecordedTurns(line.model)));
            turns.note(line, file, lineNumber);
            turns.index.addFromFile(source, line, lineNumber, bytes, written);
          },
          options.check,
        );
        // A worker's index (cassette-prefetch.ts) reads nothing later: its thread gives the file back at once.
        if (options.indexOnly) source.close();
      } catch (error) {
        source.close();
        throw error;
      }
    }
  }
  return byModel;
}
