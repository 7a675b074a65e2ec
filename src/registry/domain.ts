import type { ActionSpec, Json } from '../spec/index.ts';
import { markDefinedAt } from './defined-at.ts';
import type { ErrorTable } from './errors.ts';
import { createRegistry, type Registry } from './registry.ts';
import type { ToolSpec } from './tool-spec.ts';

/**
 * A domain: a backend fixture (fresh state per trial), its actions, and the
 * registry tools that implement them. Lives in `suites/<domain>/domain.ts`
 * as the default export.
 */
export interface Domain<State = any> {
  name: string;
  description: string;
  /** The capabilities, each with its runtime contract (declared here, once; tools take it from their action). */
  actions: ActionSpec[];
  tools: ToolSpec<State>[];
  /** The domain's own error codes (framework codes such as `not_found` or `invalid_cursor` need no entry). */
  errors?: ErrorTable;
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
export type SyncDomain<State> = Omit<Domain<State>, 'createState' | 'views'> & {
  createState(): State;
  views: Record<string, (state: State) => Json>;
};

/** Identity helper that keeps the State type flowing through a domain definition. */
export function defineDomain<State>(domain: SyncDomain<State>): SyncDomain<State>;
export function defineDomain<State>(domain: Domain<State>): Domain<State>;
export function defineDomain<State>(domain: Domain<State>): Domain<State> {
  return markDefinedAt(domain);
}

/**
 * The registry over a domain's tools (or only the named ones), each tool
 * enforcing its action's contract.
 */
export function createDomainRegistry<State>(
  domain: Pick<Domain<State>, 'tools' | 'actions'>,
  only?: readonly string[],
): Registry<State> {
  const tools = only ? domain.tools.filter((tool) => only.includes(tool.name)) : domain.tools;
  return createRegistry(tools, domain.actions);
}

export type { ActionSpec };
