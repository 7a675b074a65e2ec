import type { Actor, SideEffect } from '../spec/index.ts';
import type { ToolRuntime } from './contract.ts';
import type { HandlerFailure } from './fail.ts';
import type { SchemaSource } from './schema/index.ts';

/** What a handler gets besides its validated input. */
export interface HandlerContext<State> {
  /** The trial's own backend state (fresh per trial). */
  state: State;
  actor: Actor;
  /**
   * Aborted when the registry's timeout boundary fires. A handler that
   * writes checks it (`signal.throwIfAborted()`) right before the write, and
   * does the write and returns in one synchronous stretch, so no write can
   * land after a timeout was reported.
   */
  signal: AbortSignal;
  /** Log an executed write, so side effects are counted per trial. */
  recordEffect(
    effect: Omit<SideEffect, 'authorized' | 'duplicate' | 'change_id'> & { change_id?: string | null },
  ): void;
  /** Sleep that honours the signal: rejects with the abort reason when it fires. */
  sleep(ms: number): Promise<void>;
}

/**
 * A registry tool. The model-facing contract (name, description, schemas) is
 * kept apart from the runtime contract, which the model never sees and
 * which is declared once, on the tool's action.
 * A handler signals a domain error (e.g. `ticket_not_found`) by returning
 * `fail(toolError(...))`, never by throwing: a throw is contained as
 * `handler_exception`.
 */
export interface ToolSpec<State = unknown, Input = any, Output = any> {
  /** Registry name; for narrow tools this equals the action id (e.g. `ticket.get`). */
  name: string;
  description: string;
  /** What the model may send: zod 4, zod 3, plain JSON Schema or a `ToolSchema` (the seam, schema/). */
  input: SchemaSource<Input>;
  /** What the handler must return, checked at step 8; any schema kind, as `input`. */
  output: SchemaSource<Output>;
  /**
   * The action this tool carries out, whose contract (effect, permission,
   * approval, idempotency key) the registry enforces. Defaults to the action
   * whose id is the tool's name; a tool matching no action (a multiplexed
   * tool) has no action and declares its whole contract in `runtime`.
   */
  action?: string;
  /**
   * The tool's own part of the runtime contract: `timeout_ms` and `retry`.
   * The policy fields belong to the action; stating one here that differs
   * from the action's is a load error (contract.ts).
   */
  runtime?: ToolRuntime;
  handler(input: Input, context: HandlerContext<State>): Output | HandlerFailure | Promise<Output | HandlerFailure>;
}
