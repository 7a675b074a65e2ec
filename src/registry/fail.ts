import type { ToolError } from '../spec/index.ts';

const FAILURE = Symbol.for('toolmark.handler-failure');

/** A domain error returned by a handler (as opposed to a throw, which is a bug). */
export interface HandlerFailure {
  readonly [FAILURE]: true;
  readonly error: ToolError;
}

/** A handler returns `fail(toolError(...))` for a domain error such as `ticket_not_found`. */
export function fail(error: ToolError): HandlerFailure {
  return { [FAILURE]: true, error };
}

/** Did the handler return a domain error? */
export function isHandlerFailure(value: unknown): value is HandlerFailure {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FAILURE] === true;
}
