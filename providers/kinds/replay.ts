import type { ProviderKind } from './kind.ts';

/** Cassettes replayed by a bare `replay`: every domain's shipped cassettes. */
export const DEFAULT_CASSETTES = 'suites/*/cassettes/*.jsonl';

export type ReplaySpec = { kind: 'replay'; text: string; paths: string[] };

/** `replay[:PATH,…]`: recorded turns, one provider per recorded model. */
export const replayKind: ProviderKind<ReplaySpec> = {
  kind: 'replay',
  usage: 'replay[:PATH,…]',
  summary: 'recorded cassette turns (globs allowed); offline, deterministic',
  keyVariable: null,
  offline: true,
  defaultMaxTokens: null,
  parse: (rest, text) => ({
    kind: 'replay',
    text,
    paths: rest
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  }),
  async create(spec, context) {
    const { createReplayProviders, prefetchedCassettes } = await import('../replay/index.ts');
    const paths = spec.paths.length > 0 ? spec.paths : [DEFAULT_CASSETTES];
    const root = context.root ?? process.cwd();
    // A run may have started reading them on the second core (providers/replay/cassette-prefetch.ts).
    await prefetchedCassettes(paths, root);
    return createReplayProviders(paths, { root, allowStale: context.allowStale });
  },
};
