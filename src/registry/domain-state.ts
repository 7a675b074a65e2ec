import type { Domain } from './domain.ts';

/**
 * The states of trials in flight whose domain has a teardown, so a run that
 * must quit at once (a second Ctrl-C) can still stop their servers and
 * remove their folders. One per run, passed in; nothing global.
 */
export class LiveStates {
  readonly #teardowns = new Set<() => Promise<void>>();

  /** Track a teardown until `release` runs it; returns that release. */
  track(teardown: () => Promise<void>): () => Promise<void> {
    let done: Promise<void> | null = null;
    const release = () => {
      this.#teardowns.delete(release);
      return (done ??= teardown());
    };
    this.#teardowns.add(release);
    return release;
  }

  /** Number of states not yet torn down. */
  get size(): number {
    return this.#teardowns.size;
  }

  /** Tear down every state still live (each once, even if its trial is also finishing). */
  async drain(): Promise<void> {
    await Promise.all([...this.#teardowns].map((release) => release()));
  }
}

/** Is this a promise (a `createState` that is async)? */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** What a teardown failure does: a process warning on stderr, unless the caller says otherwise. */
export interface TeardownOptions {
  live?: LiveStates;
  onTeardownError?: (error: unknown) => void;
}

/**
 * The teardown of one state, to call once the trial is over (tracked in
 * `live` meanwhile), or null when the domain has none — so a domain without
 * a teardown costs its trials nothing, not even a microtask. A teardown
 * failure never replaces the trial's own outcome: it goes to
 * `onTeardownError` (default: a process warning on stderr).
 */
export function teardownOf<State>(
  domain: Pick<Domain<State>, 'name' | 'teardown'>,
  state: State,
  options: TeardownOptions = {},
): (() => Promise<void>) | null {
  if (!domain.teardown) return null;
  const report =
    options.onTeardownError ??
    ((error: unknown) =>
      process.emitWarning(
        `teardown of domain "${domain.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
      ));
  const teardown = async () => {
    try {
      await domain.teardown!(state);
    } catch (error) {
      report(error);
    }
  };
  return options.live ? options.live.track(teardown) : teardown;
}

/**
 * Make a fresh state, hand it to `use`, and tear it down afterwards —
 * whether `use` returned or threw, and (with `live`) when the run drains on
 * its way out.
 */
export async function withDomainState<State, T>(
  domain: Pick<Domain<State>, 'name' | 'createState' | 'teardown'>,
  use: (state: State) => T | Promise<T>,
  options: TeardownOptions = {},
): Promise<T> {
  const made = domain.createState();
  const state = isPromise(made) ? await made : made;
  const release = teardownOf(domain, state, options);
  try {
    return await use(state);
  } finally {
    await release?.();
  }
}
