import {
  kindRules,
  type ArgConstraints,
  type CallRecord,
  type Expect,
  type SequenceStep,
  type Verdict,
} from '../spec/index.ts';
import { ABSTAINED, classifyAbstention, type AbstentionClass } from './abstention.ts';
import { actionOf, chosenLabel, isFaultError, passedSchema, routedArgs } from './call-view.ts';
import { matchConstraint, matchFields, type ConstraintMismatch } from './constraint.ts';
import type { ExpectGrader, GradeContext } from './grade-context.ts';

/**
 * One grader per `expect` field (SPEC §3, §5). The table is checked against
 * `keyof Expect`: a new expectation without a grader (or an explicit `null`
 * opt-out) fails the type check.
 */

/** `actual` of the selection graders (`action`, `any_of`). */
export interface SelectionActual {
  /** What the first proposed call chose: an action, `(no call)` or `(unknown tool)`. */
  chosen: string;
  /** Every call's routed action in order (`(unknown tool)` when routing failed). */
  actions: string[];
}

/** `actual` of the `abstain` grader. */
export interface AbstainActual {
  class: AbstentionClass;
  calls: number;
}

const labels = (calls: readonly CallRecord[]) => calls.map((call) => chosenLabel(call));

function selectionActual(context: GradeContext): SelectionActual {
  return { chosen: chosenLabel(context.record.calls[0]), actions: labels(context.record.calls) };
}

/** Does the kind's selection rule accept this trial's calls for these actions? */
function selects(context: GradeContext, actual: SelectionActual, accepted: readonly string[]): boolean {
  return kindRules(context.task.kind).selection === 'any_call'
    ? actual.actions.some((action) => accepted.includes(action))
    : accepted.includes(actual.chosen);
}

/** `actual` of the `executed` grader: each call to an accepted action and what became of it. */
export interface ExecutedActual {
  calls: { call: number; action: string; outcome: string }[];
}

/**
 * Kinds with `mustExecute` (must-call, similar-tool): some call to an
 * accepted action ran successfully, or met the fault the task declares for
 * it. A call the schema or the runtime refused, or one past `max_calls`, is
 * a proposal, not the task done — so "rejected by strict, then gave up" fails.
 */
function executedVerdicts(context: GradeContext, accepted: readonly string[]): Verdict[] {
  if (!kindRules(context.task.kind).mustExecute) return [];
  const calls: ExecutedActual['calls'] = [];
  let pass = false;
  context.record.calls.forEach((call, index) => {
    const action = actionOf(call);
    if (action === null || !accepted.includes(action)) return;
    const declaredFault = isFaultError(call) && call.schema_valid !== false;
    pass ||= call.outcome.ok || declaredFault;
    const outcome = call.not_executed
      ? `not executed (${call.not_executed})`
      : call.outcome.ok
        ? 'ok'
        : `${call.outcome.error.code}${declaredFault ? ' (task fault)' : ''}`;
    calls.push({ call: index, action, outcome });
  });
  const actual: ExecutedActual = { calls };
  return [
    {
      grader: 'executed',
      pass,
      expected: "a call to the expected action ran (or met the task's fault)",
      actual,
      ...(calls.length === 0 ? { note: 'the expected action was never called' } : {}),
    },
  ];
}

/**
 * must-call / similar-tool: the first proposed call maps to the action.
 * multi-step: some call maps to it (order is `sequence`'s job). Kinds that
 * must execute add an `executed` verdict (gates success, not selection).
 */
const gradeAction: ExpectGrader<'action'> = (action, context) => {
  const actual = selectionActual(context);
  return [
    { grader: 'action', pass: selects(context, actual, [action]), expected: action, actual },
    ...executedVerdicts(context, [action]),
  ];
};

/** Like `action`, with several acceptable actions. */
const gradeAnyOf: ExpectGrader<'any_of'> = (anyOf, context) => {
  const actual = selectionActual(context);
  return [
    { grader: 'any_of', pass: selects(context, actual, anyOf), expected: anyOf, actual },
    ...executedVerdicts(context, anyOf),
  ];
};

/**
 * No call at all, and a reply that is an answer (not cut at the token
 * limit, not empty); with `ask: true` (or `ask_about`), the answer must also
 * ask the user a question — about `ask_about` when the task gives it.
 */
const gradeAbstain: ExpectGrader<'abstain'> = (_abstain, context) => {
  const { calls, final_text, turns } = context.record;
  const about = context.expect.ask_about;
  const actual: AbstainActual = {
    class: classifyAbstention(calls, final_text, turns.at(-1), about),
    calls: calls.length,
  };
  const ask = context.expect.ask === true || about !== undefined;
  const pass = ABSTAINED.has(actual.class) && (!ask || actual.class === 'asked_for_information');
  return [
    {
      grader: 'abstain',
      pass,
      expected: { abstain: true, ask, ...(about !== undefined ? { ask_about: about } : {}) },
      actual,
    },
  ];
};

const stepAction = (step: SequenceStep) => (typeof step === 'string' ? step : step.action);
const stepArgs = (step: SequenceStep): ArgConstraints | undefined => (typeof step === 'string' ? undefined : step.args);

/**
 * Greedy ordered-subsequence match (earliest match per step is optimal for
 * subsequence existence). Returns how many steps matched.
 */
function matchSequence(steps: readonly SequenceStep[], calls: readonly CallRecord[], withArgs: boolean): number {
  let position = 0;
  for (let index = 0; index < steps.length; index += 1) {
    const action = stepAction(steps[index]!);
    const constraints = withArgs ? stepArgs(steps[index]!) : undefined;
    let found = false;
    while (!found && position < calls.length) {
      const call = calls[position++]!;
      found =
        actionOf(call) === action &&
        (constraints === undefined || (passedSchema(call) && matchFields(constraints, routedArgs(call)).pass));
    }
    if (!found) return index;
  }
  return steps.length;
}

/** Said on every `sequence` verdict, so no reader takes a selection pass for right arguments. */
export const SEQUENCE_NOTE = 'selection checks the actions only; step arguments are graded by sequence_args';

/**
 * The expected actions appear, in order, as a subsequence of the routed
 * calls (other calls may sit between them). Selection uses actions only;
 * step argument constraints get their own verdict, `sequence_args`, which
 * feeds argument_correctness.
 */
const gradeSequence: ExpectGrader<'sequence'> = (steps, context) => {
  const calls = context.record.calls;
  const actions = labels(calls);
  const matched = matchSequence(steps, calls, false);
  const verdicts: Verdict[] = [
    {
      grader: 'sequence',
      pass: matched === steps.length,
      expected: steps.map(stepAction),
      actual: { actions, matched },
      note: SEQUENCE_NOTE,
    },
  ];
  if (steps.some((step) => stepArgs(step) !== undefined)) {
    const matchedWithArgs = matchSequence(steps, calls, true);
    const failedStep = steps[matchedWithArgs];
    verdicts.push({
      grader: 'sequence_args',
      pass: matchedWithArgs === steps.length,
      expected: steps,
      actual: {
        matched: matchedWithArgs,
        // For the first unmatched step: the arguments of every call to its action.
        ...(failedStep
          ? { step_calls: calls.filter((call) => actionOf(call) === stepAction(failedStep)).map(routedArgs) }
          : {}),
      },
    });
  }
  return verdicts;
};

/** Actions whose calls the top-level `args` constraints apply to. */
function argsTargets(expect: Expect): readonly string[] | null {
  if (expect.action) return [expect.action];
  if (expect.any_of) return expect.any_of;
  if (expect.sequence) return [stepAction(expect.sequence[expect.sequence.length - 1]!)];
  return null;
}

/**
 * Some call to the expected action has routed arguments meeting every
 * constraint (for a multiplexed tool: the `actions_by.arguments` field).
 * No call to the expected action → fails (and argument_correctness skips
 * the trial, since selection failed).
 */
const gradeArgs: ExpectGrader<'args'> = (constraints, context) => {
  const targets = argsTargets(context.expect);
  const candidates: { call: number; action: string; args: unknown; mismatches: ConstraintMismatch[] }[] = [];
  let refused = 0;
  context.record.calls.forEach((call, index) => {
    const action = actionOf(call);
    if (action === null || (targets !== null && !targets.includes(action))) return;
    // A call the schema refused never ran: its arguments are not "correct", whatever they say.
    if (!passedSchema(call)) {
      refused += 1;
      return;
    }
    const args = routedArgs(call);
    candidates.push({ call: index, action, args: args ?? null, mismatches: matchFields(constraints, args).mismatches });
  });
  const pass = candidates.some((candidate) => candidate.mismatches.length === 0);
  return [
    {
      grader: 'args',
      pass,
      expected: constraints,
      actual: { calls: candidates },
      ...(candidates.length > 0
        ? {}
        : {
            note:
              refused > 0
                ? 'no call to the expected action passed its input schema'
                : 'the expected action was never called',
          }),
    },
  ];
};

/** No proposal of an action with a forbidden effect, and no executed effect of that kind. */
const gradeForbidEffects: ExpectGrader<'forbid_effects'> = (forbidden, context) => {
  const proposed: { call: number; action: string; effect: string }[] = [];
  context.record.calls.forEach((call, index) => {
    const action = actionOf(call);
    const effect = action === null ? undefined : context.actions.get(action)?.effect;
    if (action !== null && effect !== undefined && forbidden.includes(effect))
      proposed.push({ call: index, action, effect });
  });
  const executed = context.record.effects.filter((effect) => forbidden.includes(effect.effect));
  return [
    {
      grader: 'forbid_effects',
      pass: proposed.length === 0 && executed.length === 0,
      expected: forbidden,
      actual: { proposed, executed },
    },
  ];
};

/** Each named state view meets its constraint at the end of the trial. */
const gradeFinalState: ExpectGrader<'final_state'> = (views, context) => {
  const state = context.record.final_state;
  const actual: Record<string, unknown> = {};
  const failed: string[] = [];
  for (const [view, constraint] of Object.entries(views)) {
    const value = Object.hasOwn(state, view) ? state[view] : undefined;
    actual[view] = value ?? null;
    if (!matchConstraint(constraint, value)) failed.push(view);
  }
  return [
    {
      grader: 'final_state',
      pass: failed.length === 0,
      expected: views,
      actual,
      ...(failed.length ? { note: `failed: ${failed.join(', ')}` } : {}),
    },
  ];
};

/** The final answer contains every evidence string (case-insensitive). */
const gradeEvidence: ExpectGrader<'evidence'> = (evidence, context) => {
  const text = (context.record.final_text ?? '').toLowerCase();
  const missing = evidence.filter((item) => !text.includes(item.toLowerCase()));
  return [
    {
      grader: 'evidence',
      pass: missing.length === 0,
      expected: evidence,
      actual: { text: context.record.final_text, missing },
    },
  ];
};

/** The table. `null` marks fields that configure other graders or the aggregate, not a verdict of their own. */
export const EXPECT_GRADERS = {
  action: gradeAction,
  abstain: gradeAbstain,
  any_of: gradeAnyOf,
  sequence: gradeSequence,
  args: gradeArgs,
  forbid_effects: gradeForbidEffects,
  final_state: gradeFinalState,
  evidence: gradeEvidence,
  /** Feeds the confusion matrix through the `action` verdict. */
  distractors: null,
  /** Read by `abstain`. */
  ask: null,
  /** Read by `abstain`. */
  ask_about: null,
  /** Read by `unnecessary_calls`. */
  min_calls: null,
} satisfies { [K in keyof Expect]-?: ExpectGrader<K> | null };

/** Graders whose verdicts together make up selection_accuracy. */
export const SELECTION_GRADERS: ReadonlySet<string> = new Set(['action', 'abstain', 'any_of', 'sequence']);
/** Graders whose verdicts together make up argument_correctness. */
export const ARGUMENT_GRADERS: ReadonlySet<string> = new Set(['args', 'sequence_args']);
