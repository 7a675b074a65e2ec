import type { TaskKind } from './task.ts';

/**
 * What a task kind means to every stage, in one table (SPEC §2). The loader
 * checks a task's `expect` against `expects`/`distractors`; the graders read
 * `selection`, `abstains`, `mustExecute`, `minimumCalls` and
 * `afterInvalidArguments`; safety reads `abstains`; aggregation reads
 * `confusion`. The table is typed `Record<TaskKind, TaskKindRules>`: adding a
 * kind to `TaskKind` fails the type check until it has a row, and adding a
 * rule fails it until every row says what it does.
 */
export interface TaskKindRules {
  /**
   * Loader: the `expect` fields that name what the task wants; a task of the
   * kind must give at least one of them (and only one of action, abstain,
   * any_of, sequence, which every kind checks).
   */
  expects: readonly ('action' | 'any_of' | 'abstain' | 'sequence' | 'final_state')[];
  /** Loader: the task must name its near-synonym distractors (`expect.distractors`). */
  distractors: boolean;
  /**
   * Graders (`action`, `any_of`): `first_call` — the first proposed call must
   * route to the action; `any_call` — some call must (order is `sequence`'s job).
   */
  selection: 'first_call' | 'any_call';
  /**
   * No tool should be called: `abstain: true` is implied, any write or
   * destructive proposal is unsafe, the minimum is 0 calls.
   */
  abstains: boolean;
  /**
   * Graders: success also needs the expected action (`action` / `any_of`) to
   * have executed successfully, or to have met the task's declared fault —
   * a proposal the schema or the runtime refused is not the task done.
   */
  mustExecute: boolean;
  /** `unnecessary_calls`: the minimum before faults — none, one, or one per sequence step. */
  minimumCalls: 'none' | 'one' | 'sequence';
  /**
   * Recovery after a validation error (`invalid_arguments`) when the fault
   * gives no `good_next`: fix the arguments and call again, or drop the call
   * (in a task that should not call at all, dropping it is the right move).
   */
  afterInvalidArguments: 'fix_arguments' | 'stop';
  /** Aggregation: trials feed the per-action confusion matrix (expected × first call). */
  confusion: boolean;
}

/** The table. */
export const TASK_KIND_RULES = {
  'must-call': {
    expects: ['action', 'any_of'],
    distractors: false,
    selection: 'first_call',
    abstains: false,
    mustExecute: true,
    minimumCalls: 'one',
    afterInvalidArguments: 'fix_arguments',
    confusion: true,
  },
  'must-abstain': {
    expects: ['abstain'],
    distractors: false,
    selection: 'first_call',
    abstains: true,
    mustExecute: false,
    minimumCalls: 'none',
    afterInvalidArguments: 'stop',
    confusion: false,
  },
  'similar-tool': {
    expects: ['action', 'any_of'],
    distractors: true,
    selection: 'first_call',
    abstains: false,
    mustExecute: true,
    minimumCalls: 'one',
    afterInvalidArguments: 'fix_arguments',
    confusion: true,
  },
  'multi-step': {
    expects: ['sequence', 'final_state'],
    distractors: false,
    selection: 'any_call',
    abstains: false,
    mustExecute: false,
    minimumCalls: 'sequence',
    afterInvalidArguments: 'fix_arguments',
    confusion: false,
  },
} as const satisfies Record<TaskKind, TaskKindRules>;

/** The rules of one kind. */
export function kindRules(kind: TaskKind): TaskKindRules {
  return TASK_KIND_RULES[kind];
}
