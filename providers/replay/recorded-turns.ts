// Never zod, nor the spec's index: the cassette worker gathers these (cassette-prefetch.ts).
import { ConfigError } from '../../src/spec/errors.ts';
import type { CassetteLine, NativeSearch } from '../../src/spec/index.ts';
import { TurnIndex, type TurnIndexSnapshot } from './cassette-index.ts';
import type { CassetteSource } from './cassette-source.ts';

/** What a worker sends of a model's turns (cassette-prefetch.ts): plain data, its index in typed arrays. */
export interface RecordedTurnsSnapshot {
  model: string;
  synthetic: boolean;
  recordedProvider: string | undefined;
  nativeSearch: RecordedTurns['nativeSearch'];
  index: TurnIndexSnapshot;
}

/**
 * The turns of one recorded model, gathered line by line (from a cassette
 * file as it is read, or from lines in memory), with what the lines say
 * about the recording.
 */
export class RecordedTurns {
  readonly model: string;
  index = new TurnIndex();
  synthetic = false;
  /** The provider of the first line. */
  recordedProvider: string | undefined;
  /** The native tool search of the first line that names one. */
  nativeSearch: { search: NativeSearch; file: string; lineNumber: number } | undefined;

  constructor(model: string) {
    this.model = model;
  }

  /** What a line says about the recording; a ConfigError when its native tool search is not the earlier lines'. */
  note(line: CassetteLine, file: string, lineNumber: number): void {
    this.synthetic ||= isSynthetic(line.provider, line.label);
    this.recordedProvider ??= line.provider;
    if (line.tool_search === undefined) return;
    const first = this.nativeSearch;
    if (first === undefined) {
      this.nativeSearch = { search: line.tool_search, file, lineNumber };
      return;
    }
    if (line.tool_search === first.search) return;
    throw new ConfigError({
      file,
      line: lineNumber,
      field: 'tool_search',
      message: `model \`${this.model}\` was recorded with the ${first.search} tool search (${first.file}:${first.lineNumber}) and with the ${line.tool_search} one; one replay provider replays one`,
      expected: 'the cassettes of one native recording per model (record each provider under its own model name)',
    });
  }

  snapshot(): RecordedTurnsSnapshot {
    const { model, synthetic, recordedProvider, nativeSearch } = this;
    return { model, synthetic, recordedProvider, nativeSearch, index: this.index.snapshot() };
  }

  /** The turns a snapshot describes, their lines read from the sources given for its files. */
  static restore(snapshot: RecordedTurnsSnapshot, sourceOf: (file: string) => CassetteSource): RecordedTurns {
    const turns = new RecordedTurns(snapshot.model);
    turns.synthetic = snapshot.synthetic;
    turns.recordedProvider = snapshot.recordedProvider;
    turns.nativeSearch = snapshot.nativeSearch;
    turns.index = TurnIndex.restore(snapshot.index, sourceOf);
    return turns;
  }
}

function isSynthetic(provider: string, label: string | undefined): boolean {
  return provider.toLowerCase() === 'synthetic' || (label ?? '').toLowerCase().startsWith('synthetic');
}
