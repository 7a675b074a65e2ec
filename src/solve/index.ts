/** The solve stage: trials (provider ↔ registry loop) and runs (plan, schedule, stream to disk). */
export { runTrial } from './trial.ts';
export type { TrialInput, ToolTime } from './trial.ts';
export { buildRequest, initialMessages } from './request.ts';
export { routeProposal, parseArguments } from './routing.ts';
export type { RoutedProposal } from './routing.ts';
export { ApprovalLedger } from './approvals.ts';
export type { ApprovalPolicy } from './approvals.ts';
export { FaultSchedule, faultError, injectIntoOutput } from './faults.ts';
export { judgeEffects } from './side-effects.ts';
export { planTrials, trialIdentity, parseShard } from './plan.ts';
export type { PlannedTrial, RunDomain, RunSelection, TrialIdentityFields } from './plan.ts';
export { preflight } from './preflight.ts';
export { createEarlyStop, SAME_FAILURE_LIMIT } from './early-stop.ts';
export type { EarlyStop, EarlyStopReason } from './early-stop.ts';
export { conversationRejected } from './trial.ts';
export { InFlightTrials } from './blocked-trials.ts';
export type { BlockedReport } from './blocked-trials.ts';
export { executeRun, planSchemaCosts, surfaceKey } from './run.ts';
// The run's live domain states (a caller quitting at once tears them down).
export { LiveStates } from '../registry/index.ts';
export type { ExecuteRunOptions, RunOutcome } from './run.ts';
