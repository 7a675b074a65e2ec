import type { Effect, Json } from '../spec/index.ts';
import type { ToolSpec } from './tool-spec.ts';

/** A canonical capability. Tasks expect actions, never exposed names. */
export interface ActionSpec {
  /** e.g. `ticket.get`, `billing.refund.submit`. */
  id: string;
  description: string;
  effect: Effect;
  /** Permission the action needs, whatever tool carries it (used to judge writes done through contract-less tools). */
  permission: string | null;
  approval: 'never' | 'required';
  /** Argument field carrying the idempotency key (excluded from approval fingerprints). */
  idempotency_key: string | null;
  /** For a write: the preview action whose successful call grants approval under `approve: after_preview`. */
  preview?: string;
}

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
