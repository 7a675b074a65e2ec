import type { ActionSpec, Json } from '../spec/index.ts';
import type { ToolSpec } from './tool-spec.ts';

/**
 * A domain: a backend fixture (fresh state per trial), its actions, and the
 * registry tools that implement them. Lives in `suites/<domain>/domain.ts`
 * as the default export.
 */
export interface Domain<State = any> {
  name: string;
  description: string;
  actions: ActionSpec[];
  tools: ToolSpec<State>[];
  createState(): State;
  /** Named views of the state, asserted by a task's `expect.final_state`. */
  views: Record<string, (state: State) => Json>;
}

/** Identity helper that keeps the State type flowing through a domain definition. */
export function defineDomain<State>(domain: Domain<State>): Domain<State> {
  return domain;
}

export type { ActionSpec };
