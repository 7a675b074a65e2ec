import { ConfigError, ProviderError, isModelTurnShape, requestHash, requestPartHashes } from '../../src/spec/index.ts';
import type {
  CassetteKey,
  CassetteLine,
  ModelRequest,
  ModelTurn,
  NativeSearch,
  ProposeOptions,
  Provider,
  TurnKey,
} from '../../src/spec/index.ts';
import type { LocatedLine } from './cassette-file.ts';
import type { TurnIndex } from './cassette-index.ts';
import { checkCassetteLine } from './cassette-line.ts';
import { RecordedTurns } from './recorded-turns.ts';
import { takePrefetchedCassettes } from './cassette-prefetch.ts';
import { readCassettes } from './read-cassettes.ts';

export { RecordedTurns } from './recorded-turns.ts';
export type { LocatedLine } from './cassette-file.ts';
export { expandGlob } from './glob.ts';
export { prefetchCassettes, prefetchedCassettes } from './cassette-prefetch.ts';

/** `tickets/status-of-t102/typed-v2/trial 0/turn 1`: how a key is named in messages. */
export function describeKey(key: TurnKey | CassetteKey): string {
  return `${key.domain}/${key.task}/${key.surface}/trial ${key.trial}/turn ${key.turn}`;
}

/** Why a request cannot be answered from the cassette (null when it can). */
export type ReplayProblem = { kind: 'missing' | 'stale'; message: string };

export interface ReplayOptions {
  /** Replay even when the request no longer hashes to what was recorded. */
  allowStale?: boolean;
  /** Cassettes up to this many bytes are held in memory, larger ones read a line at a time; default HOLD_CASSETTE_BYTES. */
  holdUpTo?: number;
}

/**
 * Deterministic provider that answers from recorded cassette lines of one
 * model. A line with `trial: "*"` answers every trial without its own line.
 */
export class ReplayProvider implements Provider {
  readonly id = 'replay';
  readonly offline = true;
  readonly model: string;
  /** The lines say they are synthetic fixtures, not a real model's output. */
  readonly synthetic: boolean;
  /** Provider that made the recording (e.g. `openai`). */
  readonly recordedProvider: string;
  /**
   * The native tool search the recording was made with (its lines say so):
   * deferred surfaces then replay through the same native path, so the
   * requests, and their hashes, are the recorded ones.
   */
  readonly toolSearch?: NativeSearch;
  readonly #turns: TurnIndex;
  readonly #allowStale: boolean;

  constructor(model: string, lines: readonly LocatedLine[] | RecordedTurns, options: ReplayOptions = {}) {
    this.model = model;
    this.#allowStale = options.allowStale ?? false;
    let turns: RecordedTurns;
    if (lines instanceof RecordedTurns) turns = lines;
    else {
      turns = new RecordedTurns(model);
      for (const located of lines) {
        turns.note(located.line, located.file, located.lineNumber);
        turns.index.addHeld(located);
      }
    }
    // Later lines win, so re-recording by appending replaces the old turn.
    this.#turns = turns.index;
    this.synthetic = turns.synthetic;
    this.recordedProvider = turns.recordedProvider ?? 'replay';
    if (turns.nativeSearch !== undefined) this.toolSearch = turns.nativeSearch.search;
  }

  /** Check that a request can be answered, without answering it (the runner's pre-flight). */
  check(request: ModelRequest, key: TurnKey): ReplayProblem | null {
    return this.#find(request, key).problem;
  }

  async propose(request: ModelRequest, options: ProposeOptions = {}): Promise<ModelTurn> {
    if (!options.key)
      throw new ProviderError('replay provider needs the turn key of each request', { retryable: false });
    const { row, problem } = this.#find(request, options.key);
    if (problem) throw new ProviderError(problem.message, { retryable: false });
    // Parsed from the file for this call (cassette-index.ts), so a caller mutating the turn cannot change later replays.
    const response = recordedResponse(this.#turns.responseText(row!));
    if (response !== null) return response;
    let located: LocatedLine;
    try {
      located = this.#turns.line(row!, checkCassetteLine);
    } catch (caught) {
      throw new ProviderError((caught as Error).message, { retryable: false });
    }
    const { line } = located;
    if (line.error) {
      // The failure the recording saw, as it saw it: replay shows the original HTTP 500, not "no turn".
      throw new ProviderError(`replayed failure (${located.file}:${located.lineNumber}): ${line.error.message}`, {
        status: line.error.status,
        retryable: line.error.retryable,
        scope: line.error.scope,
      });
    }
    return line.response!;
  }

  #find(request: ModelRequest, key: TurnKey): { row?: number; problem: ReplayProblem | null } {
    const row = this.#turns.find(key);
    if (row === undefined) {
      return {
        problem: {
          kind: 'missing',
          message: `cassette for model \`${this.model}\` has no turn for ${describeKey(key)}; re-record, or check --trials, --surface and --task`,
        },
      };
    }
    if (!this.#turns.hasRequestHash(row) || this.#allowStale || this.#turns.isRequestHash(row, requestHash(request)))
      return { row, problem: null };
    // Only a stale turn's line is read here, for the message.
    let message: string;
    try {
      message = staleMessage(this.#turns.line(row, checkCassetteLine), request, key);
    } catch (caught) {
      message = (caught as Error).message;
    }
    return { row, problem: { kind: 'stale', message } };
  }
}

/**
 * A row's `response` read alone (cassette-index.ts, `responseText`), when
 * it is a model turn the schema would take unchanged; null sends the caller
 * to the whole line, checked as the cassette was, with its errors.
 */
function recordedResponse(text: string | null): ModelTurn | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isModelTurnShape(value) ? value : null;
  } catch {
    return null;
  }
}

function staleMessage(located: LocatedLine, request: ModelRequest, key: TurnKey): string {
  const { line } = located;
  const current = requestPartHashes(request);
  let what: string;
  if (line.tools_hash !== undefined && line.tools_hash !== current.tools_hash)
    what = `the surface \`${key.surface}\` changed`;
  else if (line.messages_hash !== undefined && line.messages_hash !== current.messages_hash) {
    what =
      key.turn === 0
        ? `the task \`${key.task}\` changed`
        : `the task \`${key.task}\` or an earlier tool result changed`;
  } else if (line.tools_hash !== undefined) what = `the request for \`${key.task}\` changed`;
  else what = `the surface \`${key.surface}\` or the task \`${key.task}\` changed`;
  return `stale cassette: ${what} since it was recorded; re-record or pass --allow-stale (${located.file}:${located.lineNumber}, ${describeKey(key)})`;
}

/**
 * Load cassettes (paths may be globs, relative to `root`) and make one
 * ReplayProvider per recorded model: several synthetic behaviours in one
 * folder become several models of one run. Cassettes a worker already read
 * and indexed for the same paths (cassette-prefetch.ts) are taken from it.
 */
export function createReplayProviders(
  paths: readonly string[],
  options: ReplayOptions & { root: string },
): ReplayProvider[] {
  const byModel =
    takePrefetchedCassettes(paths, options) ?? readCassettes(paths, { ...options, check: checkCassetteLine });
  if (byModel.size === 0)
    throw new ConfigError({
      file: paths.join(','),
      message: 'the cassettes hold no turns',
      expected: 'at least one cassette line',
    });
  return [...byModel.keys()].sort().map((model) => new ReplayProvider(model, byModel.get(model)!, options));
}
