import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { CassetteLine, ProviderError, requestHash, requestPartHashes } from '../src/spec/index.ts';
import type { ModelRequest, ModelTurn, ProposeOptions, Provider } from '../src/spec/index.ts';

/** Where recorded lines go. */
export interface CassetteWriter {
  write(line: CassetteLine): void;
}

/**
 * Wrap a provider so every answered turn is written as one cassette line
 * (key + request hash + the normalised turn). Only the request's hash and
 * the turn are written: never credentials, headers or the request itself.
 * A failed call writes its ProviderError (status, redacted message,
 * retryability, scope) in place of the turn, so replaying the trial shows the
 * original failure rather than "no turn for …". Aborts (Ctrl-C) write nothing.
 */
export function recordingProvider(inner: Provider, writer: CassetteWriter): Provider {
  // Keep the declared capabilities the runner reads besides propose():
  // replay's pre-flight check and its synthetic flag (re-recording a cassette).
  return {
    ...(inner.check ? { check: inner.check.bind(inner) } : {}),
    ...(inner.synthetic !== undefined ? { synthetic: inner.synthetic } : {}),
    ...(inner.offline !== undefined ? { offline: inner.offline } : {}),
    // Deferred loading: the recorded requests must be the ones the inner provider gets (native or emulated).
    ...(inner.toolSearch !== undefined ? { toolSearch: inner.toolSearch } : {}),
    id: inner.id,
    model: inner.model,
    async propose(request: ModelRequest, options: ProposeOptions = {}): Promise<ModelTurn> {
      if (!options.key) throw new Error('recordingProvider: propose() needs options.key to record a turn');
      const line = {
        v: 1,
        provider: inner.id,
        model: inner.model,
        key: options.key,
        request_hash: requestHash(request),
        ...requestPartHashes(request),
        // Which native search answered, so replay takes the same path (and builds the same request).
        ...(request.tool_search !== undefined && inner.toolSearch !== undefined
          ? { tool_search: inner.toolSearch }
          : {}),
      };
      let turn: ModelTurn;
      try {
        turn = await inner.propose(request, options);
      } catch (error) {
        if (error instanceof ProviderError && !options.signal?.aborted) {
          writer.write(
            CassetteLine.parse({
              ...line,
              error: {
                status: error.status,
                message: error.message,
                retryable: error.retryable,
                ...(error.scope ? { scope: error.scope } : {}),
              },
            }),
          );
        }
        throw error;
      }
      writer.write(CassetteLine.parse({ ...line, response: turn }));
      return turn;
    },
  };
}

/**
 * Append cassette lines to a JSONL file, one synchronous write per line, so
 * concurrent trials never interleave inside a line.
 */
export function createCassetteWriter(file: string): CassetteWriter {
  let ready = false;
  return {
    write(line) {
      // The folder is made on the first line, so a run refused before any call leaves nothing behind.
      if (!ready) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      ready = true;
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    },
  };
}
