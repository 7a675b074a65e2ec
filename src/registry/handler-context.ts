import type { Actor, SideEffect } from '../spec/index.ts';
import { abortableSleep, type LazyAbortController } from './boundary.ts';
import type { SimulatedCallTime } from './tool-time.ts';
import type { HandlerContext } from './tool-spec.ts';

/** Where a handler context keeps its call's controller (non-enumerable: spreads and key lists do not see it). */
const CONTROLLER = Symbol('toolmark.callController');

type WithController = { [CONTROLLER]: LazyAbortController };

/** The `signal` of every handler context: one getter for all of them, reading the context's own controller. */
function callSignal(this: WithController): AbortSignal {
  return this[CONTROLLER].signal;
}

const SIGNAL_PROPERTY: PropertyDescriptor = Object.freeze({ get: callSignal, enumerable: true, configurable: true });

/**
 * The context a handler is called with: `state`, `actor`, `signal`,
 * `recordEffect`, `sleep`, all own enumerable properties in that order, as
 * an object literal made them.
 *
 * Why not that literal: its `get signal()` (the call's AbortController is
 * made only when a handler reads it: most calls never do) gave each
 * context its own accessor, which V8 keeps in a pair allocated outside the
 * young generation. That pair held the getter, the getter the whole call
 * (the trial's input, state, receipts, its records): every call of a
 * replayed run survived the next scavenges through it and was promoted,
 * about a third of what survived the trials' young collections
 * (--trace-gc-nvp). Here one getter serves every context: it is defined
 * with one shared descriptor (so contexts also share one hidden class),
 * and reads the controller kept on the context under a symbol.
 *
 * `recordEffect` and `sleep` are closures, so a handler may take them off
 * the context and call them; `signal` is read on the context (as
 * `context.signal`, or by destructuring it).
 */
export function createHandlerContext<State>(call: {
  state: State;
  actor: Actor;
  controller: LazyAbortController;
  simulated: SimulatedCallTime | null;
  effects: SideEffect[];
  /** Set when the handler records a write. */
  held: { wrote: boolean };
}): HandlerContext<State> {
  const { controller, simulated, effects, held } = call;
  const context = { state: call.state, actor: call.actor } as HandlerContext<State>;
  Object.defineProperty(context, 'signal', SIGNAL_PROPERTY);
  Object.defineProperty(context, CONTROLLER, { value: controller });
  // Closures over the call, assigned after `signal` so the keys keep the literal's order.
  const calls: Pick<HandlerContext<State>, 'recordEffect' | 'sleep'> = {
    recordEffect(effect) {
      held.wrote = true;
      effects.push({
        action: effect.action,
        effect: effect.effect,
        target: effect.target,
        change_id: effect.change_id ?? null,
      });
    },
    sleep(ms) {
      return simulated ? simulated.sleep(ms, controller.signal) : abortableSleep(ms, controller.signal);
    },
  };
  context.recordEffect = calls.recordEffect;
  context.sleep = calls.sleep;
  return context;
}
