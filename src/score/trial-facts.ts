import type { TrialRecord, Verdict } from '../spec/index.ts';
import type { AbstentionClass } from './abstention.ts';
import type { AbstainActual, SelectionActual } from './expect-graders.ts';
import { ARGUMENT_GRADERS, SELECTION_GRADERS } from './expect-graders.ts';
import type { RetrievalActual } from './retrieval.ts';
import type {
  ArgumentValidityActual,
  RecoveryActual,
  UnnecessaryCallsActual,
  UnsafeProposalsActual,
  UnsafeSideEffectsActual,
} from './trial-graders.ts';

/**
 * The per-trial numbers every metric is built from, read back from a scored
 * record's verdicts (so `trials.jsonl` alone is enough to aggregate and
 * compare; the task files are not needed).
 */
export interface TrialFacts {
  success: boolean;
  /** All selection verdicts passed; null when the task has none. */
  selection: boolean | null;
  /** For the confusion matrix: the expected action (any_of joined by `|`) and what the first call chose. */
  expectedAction: string | null;
  chosen: string | null;
  abstention: AbstentionClass | null;
  /** Argument constraints met, among trials that selected correctly; null when not applicable. */
  argumentCorrect: boolean | null;
  validProposals: number;
  checkedProposals: number;
  proposals: number;
  unsafeProposals: number;
  unsafeSideEffects: number;
  executedEffects: number;
  recoveryGood: number;
  recoverySeen: number;
  unnecessaryCalls: number;
  /** Deferred surfaces only: was a needed tool among the search results, at which rank; null when not judged. */
  retrieval: { found: boolean; rank: number | null; searches: number } | null;
}

/** Facts of a scored, completed trial; null for an errored (or unscored) one. */
export function trialFacts(record: TrialRecord): TrialFacts | null {
  if (record.status === 'errored' || record.success === null) return null;
  let selection: boolean | null = null;
  let argumentCorrect: boolean | null = null;
  // One pass over the verdicts (not one search per grader), keeping the first verdict of each grader read below.
  let action: Verdict | undefined;
  let anyOf: Verdict | undefined;
  let abstain: Verdict | undefined;
  let validity: Verdict | undefined;
  let unsafe: Verdict | undefined;
  let sideEffects: Verdict | undefined;
  let recovery: Verdict | undefined;
  let unnecessary: Verdict | undefined;
  let retrieval: Verdict | undefined;
  for (const verdict of record.verdicts) {
    if (SELECTION_GRADERS.has(verdict.grader)) selection = (selection ?? true) && verdict.pass;
    if (ARGUMENT_GRADERS.has(verdict.grader)) argumentCorrect = (argumentCorrect ?? true) && verdict.pass;
    switch (verdict.grader) {
      case 'action':
        action ??= verdict;
        break;
      case 'any_of':
        anyOf ??= verdict;
        break;
      case 'abstain':
        abstain ??= verdict;
        break;
      case 'argument_validity':
        validity ??= verdict;
        break;
      case 'unsafe_proposals':
        unsafe ??= verdict;
        break;
      case 'unsafe_side_effects':
        sideEffects ??= verdict;
        break;
      case 'recovery':
        recovery ??= verdict;
        break;
      case 'unnecessary_calls':
        unnecessary ??= verdict;
        break;
      case 'retrieval':
        retrieval ??= verdict;
        break;
    }
  }
  if (selection !== true) argumentCorrect = null;

  const selected = action ?? anyOf;
  const selectionActual = selected?.actual as SelectionActual | undefined;
  const abstainActual = abstain?.actual as AbstainActual | undefined;
  const validityActual = validity?.actual as ArgumentValidityActual | undefined;
  const unsafeActual = unsafe?.actual as UnsafeProposalsActual | undefined;
  const sideEffectsActual = sideEffects?.actual as UnsafeSideEffectsActual | undefined;
  const recoveryActual = recovery?.actual as RecoveryActual | undefined;
  const unnecessaryActual = unnecessary?.actual as UnnecessaryCallsActual | undefined;
  const retrievalActual = retrieval?.actual as RetrievalActual | undefined;

  return {
    success: record.success,
    selection,
    expectedAction: selected
      ? Array.isArray(selected.expected)
        ? selected.expected.join('|')
        : String(selected.expected)
      : null,
    chosen: selectionActual?.chosen ?? null,
    abstention: abstainActual?.class ?? null,
    argumentCorrect,
    validProposals: validityActual?.valid ?? 0,
    checkedProposals: validityActual?.checked ?? 0,
    proposals: record.calls.length,
    unsafeProposals: unsafeActual?.count ?? 0,
    unsafeSideEffects: sideEffectsActual?.count ?? 0,
    executedEffects: record.effects.length,
    recoveryGood: recoveryActual?.good ?? 0,
    recoverySeen: recoveryActual?.seen ?? 0,
    unnecessaryCalls: unnecessaryActual?.extra ?? 0,
    retrieval:
      retrieval && retrievalActual
        ? { found: retrieval.pass, rank: retrievalActual.rank, searches: retrievalActual.searches }
        : null,
  };
}
