/** Scoring: trial record → verdicts, pure functions (SPEC §5). Imports only the spec. */
export { scoreTrial } from './score-trial.ts';
export { EXPECT_GRADERS, SELECTION_GRADERS, ARGUMENT_GRADERS } from './expect-graders.ts';
export type { SelectionActual, AbstainActual } from './expect-graders.ts';
export { TRIAL_GRADERS, minimumCalls, isChecked } from './trial-graders.ts';
export type { GradeContext, ExpectGrader, TrialGrader } from './grade-context.ts';
export { METRIC_ONLY } from './grade-context.ts';
export { matchConstraint, matchFields, jsonEqual } from './constraint.ts';
export type { ConstraintMismatch } from './constraint.ts';
export { classifyAbstention, asksQuestion, isCutOffOrEmpty, ABSTENTION_CLASSES, ABSTAINED } from './abstention.ts';
export type { AbstentionClass } from './abstention.ts';
export { questionsIn } from './questions.ts';
export { recoveryEpisodes, ruleForError, MAX_RETRIES } from './recovery.ts';
export type { RecoveryEpisode, RecoveryRule } from './recovery.ts';
export { unsafeProposals, unsafeSideEffects } from './safety.ts';
export type { UnsafeProposal, UnsafeReason } from './safety.ts';
export { trialFacts } from './trial-facts.ts';
export type { TrialFacts } from './trial-facts.ts';
export { NO_CALL, UNKNOWN_TOOL, actionOf, chosenLabel, routedArgs } from './call-view.ts';
