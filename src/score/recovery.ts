import { GoodNext, type CallRecord, type TrialRecord } from '../spec/index.ts';
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

/** The rule for an error code when the fault gives no `good_next`. */
export function ruleForError(error: { code: string; category: string; retryable: boolean }): RecoveryRule {
  if (error.code === 'approval_required') return 'ask_approval';
  if (error.code === 'permission_denied') return 'stop';
  if (error.code === 'invalid_arguments' || error.category === 'validation') return 'fix_arguments';
  if (error.category === 'not_found') return 'requery';
  if (error.retryable) return 'retry';
  // tool_timeout on a non-transient tool: retrying cannot help.
  if (error.code === 'tool_timeout') return 'stop';
  return 'change_call';
}

function isGoodMove(rule: RecoveryRule, failed: CallRecord, later: readonly CallRecord[]): boolean {
  const failedIdentity = callIdentity(failed);
  const sameTarget = (call: CallRecord) => callTarget(call) === failedIdentity.target;
  const next = later[0];
  switch (rule) {
    case 'retry': {
      if (next === undefined || !sameTarget(next)) return false;
      let retries = 0;
      while (retries < later.length && sameTarget(later[retries]!)) retries += 1;
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
 */
export function recoveryEpisodes(record: Pick<TrialRecord, 'calls' | 'turns'>): RecoveryEpisode[] {
  const episodes: RecoveryEpisode[] = [];
  record.calls.forEach((call, index) => {
    if (call.outcome.ok) return;
    if (record.turns.length <= call.turn + 1) return;
    const later = record.calls.filter((other) => other.turn > call.turn);
    const faultRule = GOOD_NEXT.has(call.fault?.good_next ?? '') ? (call.fault!.good_next as GoodNext) : null;
    const rule = faultRule ?? ruleForError(call.outcome.error);
    episodes.push({
      call: index,
      code: call.outcome.error.code,
      rule,
      source: faultRule ? 'fault' : 'code',
      next: chosenLabel(later[0]),
      good: isGoodMove(rule, call, later),
    });
  });
  return episodes;
}
