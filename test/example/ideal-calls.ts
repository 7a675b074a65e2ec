import type { Constraint, Task } from '../../src/spec/index.ts';

/** Helpers that turn a task's expectations into concrete "ideal" calls for tests. */

/** A concrete argument value for a constraint, or undefined when none can be derived. */
export function exampleValue(
  name: string,
  constraint: Constraint,
  idempotencyKey: string | null,
  index: number,
): unknown {
  if (constraint === null || typeof constraint !== 'object' || Array.isArray(constraint)) return constraint;
  const record = constraint as Record<string, unknown>;
  if (Object.keys(record).length !== 1) return constraint;
  if ('one_of' in record) return (record.one_of as unknown[])[0];
  if ('contains' in record) return `Note: ${String(record.contains)}`;
  if ('any' in record && name === idempotencyKey) return `ideal-${index}`;
  if ('any' in record || 'regex' in record) return undefined;
  return constraint;
}

/** One expected call: an action and the task's constraints on its arguments. */
export interface Step {
  action: string;
  args: Record<string, Constraint>;
}

/** The calls a task expects, in order (the first of `any_of` stands for the set). */
export function idealSteps(task: Task): Step[] {
  const { expect: e } = task;
  if (e.action) return [{ action: e.action, args: e.args ?? {} }];
  if (e.any_of) return [{ action: e.any_of[0]!, args: e.args ?? {} }];
  return (e.sequence ?? []).map((step) =>
    typeof step === 'string' ? { action: step, args: {} } : { action: step.action, args: step.args ?? {} },
  );
}

/** Concrete arguments for a step: pinned values kept, derivable ones filled, the idempotency key always set. */
export function idealArgs(step: Step, idempotencyKey: string | null, index: number): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, constraint] of Object.entries(step.args)) {
    const value = exampleValue(name, constraint, idempotencyKey, index);
    if (value !== undefined) args[name] = value;
  }
  if (idempotencyKey && args[idempotencyKey] === undefined) args[idempotencyKey] = `ideal-${index}`;
  return args;
}
