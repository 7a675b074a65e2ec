import { canonicalJson, type CallRecord } from '../spec/index.ts';

/** Label for "the model made no call" in selection verdicts and the confusion matrix. */
export const NO_CALL = '(no call)';
/** Label for a call to a name the surface does not expose (or a multiplexed selector with no mapped action). */
export const UNKNOWN_TOOL = '(unknown tool)';

/** The action a call was routed to, or null when routing failed. */
export function actionOf(call: CallRecord): string | null {
  return call.routing.kind === 'resolved' ? call.routing.action : null;
}

/** What a call chose, for selection verdicts: the routed action or `(unknown tool)`. */
export function chosenLabel(call: CallRecord | undefined): string {
  if (call === undefined) return NO_CALL;
  return actionOf(call) ?? UNKNOWN_TOOL;
}

/** The routed action's own arguments (for a multiplexed tool: the `actions_by.arguments` field). */
export function routedArgs(call: CallRecord): unknown {
  return call.routing.kind === 'resolved' ? call.routing.args : undefined;
}

/** What a call was aimed at: the routed action, or the exposed name when routing failed. */
export function callTarget(call: CallRecord): string {
  return actionOf(call) ?? `name:${call.proposal.name}`;
}

/**
 * Identity of a call for "same call again?" checks: its target (`callTarget`)
 * plus its arguments (canonical JSON when they parsed, the raw string
 * otherwise). Checks that only compare targets use `callTarget`: the
 * canonical arguments are the costly half.
 */
export function callIdentity(call: CallRecord): { target: string; args: string } {
  const target = callTarget(call);
  const args =
    call.routing.kind === 'resolved' && call.parsed
      ? canonicalJson(call.routing.args)
      : `raw:${call.proposal.arguments}`;
  return { target, args };
}

/**
 * A call is malformed when its arguments did not parse, its name is not on
 * the surface, its selector maps to no action, or it failed the input schema.
 * A malformed call is still a call: never an abstention.
 */
export function isMalformed(call: CallRecord): boolean {
  return !call.parsed || call.routing.kind !== 'resolved' || call.schema_valid === false;
}

/** Did the error on this call come from a task fault (not from the runtime)? */
export function isFaultError(call: CallRecord): boolean {
  return call.fault !== null && !call.fault.inject && !call.outcome.ok;
}

/** Did the call's arguments parse and pass the tool's input schema (so it could run)? */
export function passedSchema(call: CallRecord): boolean {
  return call.parsed && call.schema_valid === true;
}
