import type { Task, TaskSpec } from '../spec/index.ts';

/**
 * The loaded task for a plain task spec, checked without zod (issue 20).
 *
 * zod's check of one task costs ~20 µs and builds a copy of it; 10,000
 * generated tasks spent ~0.2 s of CPU there and in the garbage collector.
 * Almost every task is plain: an id, a kind, messages and an `expect` with
 * an action and literal argument constraints. `plainTask` checks such a task
 * by hand and gives what `{ ...TaskSpec.parse(item), ...where }` gives — the
 * same fields and values, defaults filled in, keys in the schema's order
 * (test/load/plain-task.test.ts compares the two on generated tasks, valid
 * and not).
 *
 * It never reports a problem: for anything it does not know (faults, a
 * sequence, `final_state`, an operator it does not rebuild, a field of the
 * wrong type) it returns undefined, and zod checks the task and words the
 * issue. Keep it in step with src/spec/task.ts.
 *
 * Memory (100,000 tasks): the parsed objects are used as they are where zod
 * would build an equal copy (the caller owns them: SourceFile.value), and
 * the defaults are frozen objects shared by every task, as nothing changes
 * a loaded task.
 */

type Item = Record<string, unknown>;

const SUITE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const KINDS = new Set(['must-call', 'must-abstain', 'similar-tool', 'multi-step']);
const ROLES = new Set(['user', 'system', 'assistant']);
const APPROVALS = new Set(['none', 'all', 'after_preview']);
const EFFECTS = new Set(['read', 'write', 'destructive']);
/**
 * The task's fields (the task object is built anew, in the schema's order,
 * so theirs does not matter). A task with a `description` is zod's: it is
 * rare in generated suites, and would need a second shape.
 */
const TASK_KEYS = new Set(['id', 'kind', 'messages', 'actor', 'approve', 'expect', 'faults', 'limits', 'tags']);
/** The `expect` fields checked here, in the schema's order; a task with any other (sequence, final_state, ask_about) is zod's. */
const EXPECT_KEYS = [
  'action',
  'abstain',
  'any_of',
  'args',
  'distractors',
  'forbid_effects',
  'evidence',
  'ask',
  'min_calls',
];
const LIMIT_KEYS = ['max_calls', 'max_turns'];

const DEFAULT_ACTOR: Task['actor'] = Object.freeze({
  id: 'user',
  permissions: Object.freeze([]) as unknown as string[],
});
const NO_FAULTS = Object.freeze([]) as unknown as Task['faults'];
const DEFAULT_LIMITS: Task['limits'] = Object.freeze({ max_calls: 8, max_turns: 8 });
const NO_TAGS = Object.freeze([]) as unknown as string[];

/** A mapping as the YAML readers build it: a plain object. */
function isItem(value: unknown): value is Item {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/**
 * Are the item's keys all in `order` and in that order, none undefined?
 * Then zod's output has the same keys in the same order, and the item
 * itself can stand for it once its fields are checked.
 */
function keysInOrder(item: Item, order: readonly string[]): boolean {
  let at = 0;
  for (const key in item) {
    if (!Object.prototype.hasOwnProperty.call(item, key) || item[key] === undefined) return false;
    while (at < order.length && order[at] !== key) at++;
    if (at === order.length) return false;
    at++;
  }
  return true;
}

function isStrings(value: unknown, min = 0): value is string[] {
  if (!Array.isArray(value) || value.length < min) return false;
  for (const entry of value) if (typeof entry !== 'string') return false;
  return true;
}

/**
 * An argument constraint the `Constraint` union gives back unchanged: a
 * string, finite number, boolean or null, or `{regex}`, `{contains}` or
 * `{any: true}`. Lists, other objects and other operators are zod's.
 */
function isPlainConstraint(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (!isItem(value)) return false;
  let count = 0;
  for (const key in value) {
    if (++count > 1) return false;
    const operand = value[key];
    if (
      !((key === 'regex' || key === 'contains') && typeof operand === 'string') &&
      !(key === 'any' && operand === true)
    )
      return false;
  }
  return count === 1;
}

function isPlainArgs(value: unknown): boolean {
  if (!isItem(value)) return false;
  for (const key in value) {
    // zod's record does not copy an own `__proto__` key as it is.
    if (!Object.prototype.hasOwnProperty.call(value, key) || key === '__proto__' || !isPlainConstraint(value[key]))
      return false;
  }
  return true;
}

function isPlainExpect(value: unknown): value is TaskSpec['expect'] {
  if (!isItem(value) || !keysInOrder(value, EXPECT_KEYS)) return false;
  const { action, abstain, any_of, args, distractors, forbid_effects, evidence, ask, min_calls } = value;
  return (
    (action === undefined || typeof action === 'string') &&
    (abstain === undefined || abstain === true) &&
    (any_of === undefined || isStrings(any_of, 1)) &&
    (args === undefined || isPlainArgs(args)) &&
    (distractors === undefined || isStrings(distractors)) &&
    (forbid_effects === undefined ||
      (isStrings(forbid_effects) && forbid_effects.every((effect) => EFFECTS.has(effect)))) &&
    (evidence === undefined || isStrings(evidence)) &&
    (ask === undefined || typeof ask === 'boolean') &&
    (min_calls === undefined || (Number.isSafeInteger(min_calls) && (min_calls as number) >= 0))
  );
}

function isPlainMessages(value: unknown): value is TaskSpec['messages'] {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const message of value) {
    if (!isItem(message)) return false;
    let count = 0;
    for (const key in message) {
      count++;
      if ((count === 1 && key !== 'role') || (count === 2 && key !== 'content') || count > 2) return false;
    }
    if (count !== 2 || !ROLES.has(message.role as string) || typeof message.content !== 'string') return false;
  }
  return true;
}

function isPositiveInteger(value: unknown): boolean {
  return value === undefined || (Number.isSafeInteger(value) && (value as number) > 0);
}

function actorOf(value: unknown): Task['actor'] | undefined {
  if (value === undefined) return DEFAULT_ACTOR;
  // Actor is not strict in the schema: unknown keys are dropped, so it is rebuilt.
  if (!isItem(value)) return undefined;
  const { id, permissions } = value;
  if ((id !== undefined && typeof id !== 'string') || (permissions !== undefined && !isStrings(permissions)))
    return undefined;
  if (('id' in value && id === undefined) || ('permissions' in value && permissions === undefined)) return undefined;
  return { id: id ?? 'user', permissions: permissions ?? [] };
}

function limitsOf(value: unknown): Task['limits'] | undefined {
  if (value === undefined) return DEFAULT_LIMITS;
  if (!isItem(value) || !keysInOrder(value, LIMIT_KEYS)) return undefined;
  const { max_calls, max_turns } = value;
  if (!isPositiveInteger(max_calls) || !isPositiveInteger(max_turns)) return undefined;
  return { max_calls: (max_calls as number | undefined) ?? 8, max_turns: (max_turns as number | undefined) ?? 8 };
}

/** What `{ ...TaskSpec.parse(item), domain, split, source }` gives, when the task is plain; else undefined (zod's). */
export function plainTask(
  item: unknown,
  domain: string,
  split: Task['split'],
  source: Task['source'],
): Task | undefined {
  if (!isItem(item)) return undefined;
  for (const key in item) {
    if (!Object.prototype.hasOwnProperty.call(item, key) || !TASK_KEYS.has(key) || item[key] === undefined)
      return undefined;
  }
  const { id, kind, messages, approve, expect, faults, tags } = item;
  if (typeof id !== 'string' || !SUITE_ID.test(id) || !KINDS.has(kind as string)) return undefined;
  if (!isPlainMessages(messages) || !isPlainExpect(expect)) return undefined;
  if (approve !== undefined && !APPROVALS.has(approve as string)) return undefined;
  // Faults are zod's to check, bar none.
  if (faults !== undefined && !(Array.isArray(faults) && faults.length === 0)) return undefined;
  if (tags !== undefined && !isStrings(tags)) return undefined;
  const actor = actorOf(item.actor);
  const limits = limitsOf(item.limits);
  if (!actor || !limits) return undefined;
  // One literal in the schema's order: every plain task shares one hidden class.
  return {
    id,
    kind: kind as Task['kind'],
    messages,
    actor,
    approve: (approve ?? 'none') as Task['approve'],
    expect,
    faults: faults === undefined ? NO_FAULTS : (faults as Task['faults']),
    limits,
    tags: tags ?? NO_TAGS,
    domain,
    split,
    source,
  };
}
