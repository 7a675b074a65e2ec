import type { z } from 'zod';
import type { Actor, RuntimeContract, SideEffect } from '../spec/index.ts';

/** What a handler gets besides its validated input. */
export interface HandlerContext<State> {
  /** The trial's own backend state (fresh per trial). */
  state: State;
  actor: Actor;
  /** Aborted when the registry's timeout boundary fires. */
  signal: AbortSignal;
  /** Log an executed write, so side effects are counted per trial. */
  recordEffect(effect: Omit<SideEffect, 'authorized' | 'duplicate'>): void;
  /** Sleep that honours the signal (tools that simulate latency use it). */
  sleep(ms: number): Promise<void>;
}

/**
 * A registry tool. The model-facing contract (name, description, schemas) is
 * kept apart from the runtime contract, which the model never sees.
 * A handler signals a domain error by returning `{ toolError: … }` via
 * `domainError()`, never by throwing (a throw is contained as
 * `handler_exception`).
 */
export interface ToolSpec<State = unknown, Input = any, Output = any> {
  /** Registry name; for narrow tools this equals the action id (e.g. `ticket.get`). */
  name: string;
  description: string;
  input: z.ZodType<Input>;
  output: z.ZodType<Output>;
  runtime: RuntimeContract;
  handler(input: Input, context: HandlerContext<State>): Output | Promise<Output>;
}
