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
  /** Fresh state for one trial; may be async (an MCP domain starts its server here). */
  createState(): State | Promise<State>;
  /**
   * Called once a trial's state is no longer needed, whatever happened in the
   * trial (an MCP domain closes the trial's server and removes its folder).
   */
  teardown?(state: State): void | Promise<void>;
  /**
   * Called once at the end of a run, on error and on Ctrl-C: release what
   * outlives a trial (an MCP domain closes every server still open).
   */
  close?(): Promise<void>;
  /** Named views of the state, asserted by a task's `expect.final_state`; taken before teardown. */
  views: Record<string, (state: State) => Json | Promise<Json>>;
  /**
   * Tool definitions the model does not see but the surface hash must cover
   * (an MCP server's output schemas and annotations), so a change to them
   * makes recorded runs stale. Absent for TypeScript domains.
   */
  hashBasis?: unknown;
}

/** A domain whose state and views are plain values: what a TypeScript domain usually is. */
export type SyncDomain<State> = Omit<Domain<State>, 'createState' | 'views'> & { createState(): State; views: Record<string, (state: State) => Json> };

/** Identity helper that keeps the State type flowing through a domain definition. */
export function defineDomain<State>(domain: SyncDomain<State>): SyncDomain<State>;
export function defineDomain<State>(domain: Domain<State>): Domain<State>;
export function defineDomain<State>(domain: Domain<State>): Domain<State> {
  return domain;
}

export type { ActionSpec };
