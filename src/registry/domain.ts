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
  /** A fresh backend for one trial. May be async (start a server, fill a temp folder). */
  createState(): State | Promise<State>;
  /**
   * Release what `createState` made (stop the server, remove the folder).
   * Called once after every trial that got a state — also when the trial
   * errored or the run was interrupted. A teardown that throws is reported
   * on stderr and does not fail the trial.
   */
  teardown?(state: State): void | Promise<void>;
  /** Named views of the state, asserted by a task's `expect.final_state`. */
  views: Record<string, (state: State) => Json>;
}

/**
 * Identity helper that keeps the State type flowing through a domain
 * definition. Tools may give zod 4, zod 3 or JSON Schema (adapted at the
 * registry's boundary), see `defineTool`.
 */
export function defineDomain<State>(domain: SyncDomain<State>): SyncDomain<State>;
export function defineDomain<State>(domain: Domain<State>): Domain<State>;
export function defineDomain<State>(domain: Domain<State>): Domain<State> {
  return markDefinedAt(domain);
}

/** A domain whose `createState` is synchronous (callers may use the state at once). */
export type SyncDomain<State> = Omit<Domain<State>, 'createState'> & { createState(): State };

/**
 * The registry over a domain's tools (or only the named ones), each tool
 * enforcing its action's contract.
 */
export function createDomainRegistry<State>(domain: Pick<Domain<State>, 'tools' | 'actions'>, only?: readonly string[]): Registry<State> {
  const tools = only ? domain.tools.filter((tool) => only.includes(tool.name)) : domain.tools;
  return createRegistry(tools, domain.actions);
}

export type { ActionSpec };
