import type { TrialRecord, Verdict } from '../spec/index.ts';
import type { AbstentionClass } from './abstention.ts';
import type { AbstainActual, SelectionActual } from './expect-graders.ts';
import { ARGUMENT_GRADERS, SELECTION_GRADERS } from './expect-graders.ts';
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
}

function find(verdicts: readonly Verdict[], grader: string): Verdict | undefined {
  for (const verdict of verdicts) if (verdict.grader === grader) return verdict;
  return undefined;
}

/** Facts of a scored, completed trial; null for an errored (or unscored) one. */
export function trialFacts(record: TrialRecord): TrialFacts | null {
  if (record.status === 'errored' || record.success === null) return null;
  const verdicts = record.verdicts;
  let selection: boolean | null = null;
  let argumentCorrect: boolean | null = null;
  for (const verdict of verdicts) {
    if (SELECTION_GRADERS.has(verdict.grader)) selection = (selection ?? true) && verdict.pass;
    if (ARGUMENT_GRADERS.has(verdict.grader)) argumentCorrect = (argumentCorrect ?? true) && verdict.pass;
  }
  if (selection !== true) argumentCorrect = null;

  const action = find(verdicts, 'action') ?? find(verdicts, 'any_of');
  const selectionActual = action?.actual as SelectionActual | undefined;
  const abstain = find(verdicts, 'abstain')?.actual as AbstainActual | undefined;
  const validity = find(verdicts, 'argument_validity')?.actual as ArgumentValidityActual | undefined;
  const unsafe = find(verdicts, 'unsafe_proposals')?.actual as UnsafeProposalsActual | undefined;
  const sideEffects = find(verdicts, 'unsafe_side_effects')?.actual as UnsafeSideEffectsActual | undefined;
  const recovery = find(verdicts, 'recovery')?.actual as RecoveryActual | undefined;
  const unnecessary = find(verdicts, 'unnecessary_calls')?.actual as UnnecessaryCallsActual | undefined;

  return {
    success: record.success,
    selection,
    expectedAction: action ? (Array.isArray(action.expected) ? action.expected.join('|') : String(action.expected)) : null,
    chosen: selectionActual?.chosen ?? null,
    abstention: abstain?.class ?? null,
    argumentCorrect,
    validProposals: validity?.valid ?? 0,
    checkedProposals: validity?.checked ?? 0,
    proposals: record.calls.length,
    unsafeProposals: unsafe?.count ?? 0,
    unsafeSideEffects: sideEffects?.count ?? 0,
    executedEffects: record.effects.length,
    recoveryGood: recovery?.good ?? 0,
    recoverySeen: recovery?.seen ?? 0,
    unnecessaryCalls: unnecessary?.extra ?? 0,
  };
}
