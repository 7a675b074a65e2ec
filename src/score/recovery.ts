import { GoodNext, kindRules, type CallRecord, type TaskKind, type TrialRecord } from '../spec/index.ts';
import { callIdentity, callTarget, chosenLabel } from './call-view.ts';

/**
 * Recovery (SPEC §5): after each structured error the model saw, was its
 * next move a good one? The fault's `good_next` decides when present,
 * otherwise the rule for the error code.
 */
export type RecoveryRule = GoodNext | 'change_call';

const GOOD_NEXT: ReadonlySet<string> = new Set(GoodNext.options);

/** The most retries of the same call counted as "bounded". */
export const MAX_RETRIES = 2;

export interface RecoveryEpisode {
  /** Index of the failed call in `record.calls`. */
  call: number;
  code: string;
  rule: RecoveryRule;
  source: 'fault' | 'code';
  /** What the model did next: the next call's action, or `(no call)`. */
  next: string;
  good: boolean;
}

/**
 * The rule for an error code when the fault gives no `good_next`. After a
 * validation error the kind decides (`afterInvalidArguments`): fix the
 * arguments, or — in a task that should not call at all — drop the call.
 */
export function ruleForError(
  error: { code: string; category: string; retryable: boolean },
  kind: TaskKind = 'must-call',
): RecoveryRule {
  if (error.code === 'approval_required') return 'ask_approval';
  if (error.code === 'permission_denied') return 'stop';
  if (error.code === 'invalid_arguments' || error.category === 'validation')
    return kindRules(kind).afterInvalidArguments;
  if (error.category === 'not_found') return 'requery';
  if (error.retryable) return 'retry';
  // tool_timeout on a non-transient tool: retrying cannot help.
  if (error.code === 'tool_timeout') return 'stop';
  return 'change_call';
}

/** The rule of a failed call: its fault's `good_next` when it gives one, else the rule for the error. */
export function ruleOf(call: CallRecord, kind: TaskKind): { rule: RecoveryRule; source: 'fault' | 'code' } | null {
  if (call.outcome.ok) return null;
  const faultRule = GOOD_NEXT.has(call.fault?.good_next ?? '') ? (call.fault!.good_next as GoodNext) : null;
  return faultRule
    ? { rule: faultRule, source: 'fault' }
    : { rule: ruleForError(call.outcome.error, kind), source: 'code' };
}

/** Rules whose good move is another call (a retry, a fix, a new query): a fault with one costs a call. */
export const RULES_NEEDING_A_CALL: ReadonlySet<RecoveryRule> = new Set(['retry', 'fix_arguments', 'requery']);

function isGoodMove(rule: RecoveryRule, failed: CallRecord, later: readonly CallRecord[]): boolean {
  const failedIdentity = callIdentity(failed);
  const sameTarget = (call: CallRecord) => callTarget(call) === failedIdentity.target;
  const sameCall = (call: CallRecord) => {
    const identity = callIdentity(call);
    return identity.target === failedIdentity.target && identity.args === failedIdentity.args;
  };
  const next = later[0];
  switch (rule) {
    case 'retry': {
      // A retry is the same action with the same arguments; what follows the retries is the model's next task.
      // When the failed call's own arguments failed the schema (a fault fired on a malformed call), a
      // corrected call to the same action is the retry: re-sending the malformed one could not be the aim.
      const isRetry = failed.schema_valid === false ? sameTarget : sameCall;
      if (next === undefined || !isRetry(next)) return false;
      let retries = 0;
      while (retries < later.length && isRetry(later[retries]!)) retries += 1;
      return retries <= MAX_RETRIES;
    }
    case 'fix_arguments':
      return next !== undefined && sameTarget(next) && callIdentity(next).args !== failedIdentity.args;
    case 'ask_approval':
      // Asking or stopping is good; so is a preview. Re-sending the write unapproved is not.
      return !later.some((call) => sameTarget(call) && !call.approved);
    case 'stop':
      return !later.some(sameTarget);
    case 'requery': {
      if (next === undefined) return false;
      const identity = callIdentity(next);
      return identity.target !== failedIdentity.target || identity.args !== failedIdentity.args;
    }
    case 'change_call': {
      if (next === undefined) return true;
      const identity = callIdentity(next);
      return identity.target !== failedIdentity.target || identity.args !== failedIdentity.args;
    }
  }
}

/**
 * Every structured error the model saw, with its verdict. An error counts as
 * seen when the model had a later turn (a trial cut off right after the
 * error gave it no chance to move). The "next move" is taken from later
 * turns only: calls proposed in the same turn were made before the error.
 * Proposals past `max_calls` count as moves (the model made them) but are
 * never episodes themselves.
 */
export function recoveryEpisodes(record: Pick<TrialRecord, 'calls' | 'turns' | 'kind'>): RecoveryEpisode[] {
  const episodes: RecoveryEpisode[] = [];
  record.calls.forEach((call, index) => {
    // A proposal that never ran returned nothing the model could see.
    if (call.outcome.ok || call.not_executed) return;
    if (record.turns.length <= call.turn + 1) return;
    const later = record.calls.filter((other) => other.turn > call.turn);
    const { rule, source } = ruleOf(call, record.kind)!;
    episodes.push({
      call: index,
      code: call.outcome.error.code,
      rule,
      source,
      next: chosenLabel(later[0]),
      good: isGoodMove(rule, call, later),
    });
  });
  return episodes;
}
