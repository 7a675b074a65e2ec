import path from 'node:path';
import { ConfigError, ProviderError, requestHash, requestPartHashes } from '../../src/spec/index.ts';
import type {
  CassetteKey,
  ModelRequest,
  ModelTurn,
  NativeSearch,
  ProposeOptions,
  Provider,
  TurnKey,
} from '../../src/spec/index.ts';
import { readCassetteFile } from './cassette-file.ts';
import type { LocatedLine } from './cassette-file.ts';
import { expandGlob } from './glob.ts';

export { readCassetteFile } from './cassette-file.ts';
export type { LocatedLine } from './cassette-file.ts';
export { expandGlob } from './glob.ts';

/** `tickets/status-of-t102/typed-v2/trial 0/turn 1`: how a key is named in messages. */
export function describeKey(key: TurnKey | CassetteKey): string {
  return `${key.domain}/${key.task}/${key.surface}/trial ${key.trial}/turn ${key.turn}`;
}

function indexKey(key: { domain: string; task: string; surface: string; trial: number | '*'; turn: number }): string {
  return JSON.stringify([key.domain, key.task, key.surface, key.trial, key.turn]);
}

/** Why a request cannot be answered from the cassette (null when it can). */
export type ReplayProblem = { kind: 'missing' | 'stale'; message: string };

export interface ReplayOptions {
  /** Replay even when the request no longer hashes to what was recorded. */
  allowStale?: boolean;
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
  readonly #lines = new Map<string, LocatedLine>();
  readonly #allowStale: boolean;

  constructor(model: string, lines: readonly LocatedLine[], options: ReplayOptions = {}) {
    this.model = model;
    this.#allowStale = options.allowStale ?? false;
    // Later lines win, so re-recording by appending replaces the old turn.
    for (const located of lines) this.#lines.set(indexKey(located.line.key), located);
    this.synthetic = lines.some(({ line }) => isSynthetic(line.provider, line.label));
    this.recordedProvider = lines[0]?.line.provider ?? 'replay';
    const native = nativeSearchOf(model, lines);
    if (native !== undefined) this.toolSearch = native;
  }

  /** Check that a request can be answered, without answering it (the runner's pre-flight). */
  check(request: ModelRequest, key: TurnKey): ReplayProblem | null {
    return this.#find(request, key).problem;
  }

  async propose(request: ModelRequest, options: ProposeOptions = {}): Promise<ModelTurn> {
    if (!options.key)
      throw new ProviderError('replay provider needs the turn key of each request', { retryable: false });
    const { located, problem } = this.#find(request, options.key);
    if (problem) throw new ProviderError(problem.message, { retryable: false });
    const { line } = located!;
    if (line.error) {
      // The failure the recording saw, as it saw it: replay shows the original HTTP 500, not "no turn".
      throw new ProviderError(`replayed failure (${located!.file}:${located!.lineNumber}): ${line.error.message}`, {
        status: line.error.status,
        retryable: line.error.retryable,
        scope: line.error.scope,
      });
    }
    // A copy, so a caller mutating the turn cannot change later replays.
    return structuredClone(line.response!);
  }

  #find(request: ModelRequest, key: TurnKey): { located?: LocatedLine; problem: ReplayProblem | null } {
    const located = this.#lines.get(indexKey(key)) ?? this.#lines.get(indexKey({ ...key, trial: '*' }));
    if (!located) {
      return {
        problem: {
          kind: 'missing',
          message: `cassette for model \`${this.model}\` has no turn for ${describeKey(key)}; re-record, or check --trials, --surface and --task`,
        },
      };
    }
    const recorded = located.line.request_hash;
    if (recorded === undefined || this.#allowStale || recorded === requestHash(request))
      return { located, problem: null };
    return { located, problem: { kind: 'stale', message: staleMessage(located, request, key) } };
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

/** The one native tool search the lines of a model were recorded with; a ConfigError when they name two. */
function nativeSearchOf(model: string, lines: readonly LocatedLine[]): NativeSearch | undefined {
  const first = lines.find(({ line }) => line.tool_search !== undefined);
  const other = lines.find(
    ({ line }) => line.tool_search !== undefined && line.tool_search !== first!.line.tool_search,
  );
  if (other) {
    throw new ConfigError({
      file: other.file,
      line: other.lineNumber,
      field: 'tool_search',
      message: `model \`${model}\` was recorded with the ${first!.line.tool_search} tool search (${first!.file}:${first!.lineNumber}) and with the ${other.line.tool_search} one; one replay provider replays one`,
      expected: 'the cassettes of one native recording per model (record each provider under its own model name)',
    });
  }
  return first?.line.tool_search;
}

function isSynthetic(provider: string, label: string | undefined): boolean {
  return provider.toLowerCase() === 'synthetic' || (label ?? '').toLowerCase().startsWith('synthetic');
}

/**
 * Load cassettes (paths may be globs, relative to `root`) and make one
 * ReplayProvider per recorded model: several synthetic behaviours in one
 * folder become several models of one run.
 */
export function createReplayProviders(
  paths: readonly string[],
  options: ReplayOptions & { root: string },
): ReplayProvider[] {
  const byModel = new Map<string, LocatedLine[]>();
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
      for (const located of readCassetteFile(file)) {
        const list = byModel.get(located.line.model) ?? [];
        list.push(located);
        byModel.set(located.line.model, list);
      }
    }
  }
  if (byModel.size === 0)
    throw new ConfigError({
      file: paths.join(','),
      message: 'the cassettes hold no turns',
      expected: 'at least one cassette line',
    });
  return [...byModel.keys()].sort().map((model) => new ReplayProvider(model, byModel.get(model)!, options));
}
