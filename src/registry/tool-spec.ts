import type { Actor, RuntimeContract, SideEffect } from '../spec/index.ts';
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
  recordEffect(effect: Omit<SideEffect, 'authorized' | 'duplicate' | 'change_id'> & { change_id?: string | null }): void;
  /** Sleep that honours the signal: rejects with the abort reason when it fires. */
  sleep(ms: number): Promise<void>;
}

/**
 * A registry tool. The model-facing contract (name, description, schemas) is
 * kept apart from the runtime contract, which the model never sees.
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
  runtime: RuntimeContract;
  handler(input: Input, context: HandlerContext<State>): Output | HandlerFailure | Promise<Output | HandlerFailure>;
}
