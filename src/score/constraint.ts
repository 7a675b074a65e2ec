import { canonicalJson, type ArgConstraints, type Constraint } from '../spec/index.ts';
import { compileLinearRegex, type LinearRegex } from '../spec/linear-regex.ts';

/**
 * Constraint matching, shared by `args`, sequence step args and
 * `final_state` (SPEC §3). A constraint is a literal JSON value (deep
 * equality, key order ignored) or one operator object:
 * - `{regex: "…"}`    — the value is a string, number or boolean whose text matches
 * - `{one_of: [...]}` — deep-equal to one of the listed values
 * - `{contains: "…"}` — a string containing the text (case-insensitive), or an array with an element equal to it
 * - `{any: true}`     — present (not undefined), any value
 * - `{default: v}`    — absent, or deep-equal to `v` (a tool default the model may leave out)
 */

type Operator = { regex: string } | { one_of: unknown[] } | { contains: string } | { any: true } | { default: unknown };

/** Recognise an operator object; anything else is a literal. */
function asOperator(constraint: Constraint): Operator | null {
  if (constraint === null || typeof constraint !== 'object' || Array.isArray(constraint)) return null;
  const keys = Object.keys(constraint);
  if (keys.length !== 1) return null;
  const record = constraint as Record<string, unknown>;
  if (keys[0] === 'regex' && typeof record.regex === 'string') return { regex: record.regex };
  if (keys[0] === 'one_of' && Array.isArray(record.one_of)) return { one_of: record.one_of };
  if (keys[0] === 'contains' && typeof record.contains === 'string') return { contains: record.contains };
  if (keys[0] === 'any' && record.any === true) return { any: true };
  if (keys[0] === 'default' && record.default !== undefined) return { default: record.default };
  return null;
}

/**
 * Deep equality of JSON values, ignoring object key order: true exactly when
 * both have the same canonical JSON (`canonicalJson`), compared structurally
 * so no text is built — keys whose value is undefined are left out, an
 * undefined array element counts as null, non-finite numbers as null.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === undefined || right === undefined) return left === right;
  return sameJson(left, right);
}

function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  const leftIsObject = left !== null && typeof left === 'object';
  const rightIsObject = right !== null && typeof right === 'object';
  // Two primitives (or a primitive and undefined/NaN in an array): compare their JSON text.
  if (!leftIsObject && !rightIsObject) return canonicalJson(left) === canonicalJson(right);
  if (!leftIsObject || !rightIsObject || Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    if (left.length !== other.length) return false;
    for (let index = 0; index < left.length; index += 1) if (!sameJson(left[index], other[index])) return false;
    return true;
  }
  const leftObject = left as Record<string, unknown>;
  const rightObject = right as Record<string, unknown>;
  let leftKeys = 0;
  for (const key of Object.keys(leftObject)) {
    if (leftObject[key] === undefined) continue;
    leftKeys += 1;
    if (
      !Object.hasOwn(rightObject, key) ||
      rightObject[key] === undefined ||
      !sameJson(leftObject[key], rightObject[key])
    )
      return false;
  }
  // Every defined key of the left is defined and equal on the right; equal counts mean no extra ones.
  let rightKeys = 0;
  for (const key of Object.keys(rightObject)) if (rightObject[key] !== undefined) rightKeys += 1;
  return leftKeys === rightKeys;
}

// Regexes come from task files; compile each once, on the linear-time engine (a crafted argument cannot hang it).
const regexCache = new Map<string, LinearRegex | null>();
function compile(source: string): LinearRegex | null {
  let compiled = regexCache.get(source);
  if (compiled === undefined) {
    const result = compileLinearRegex(source);
    compiled = 'regex' in result ? result.regex : null; // the loader rejects bad patterns; a stray one simply never matches
    regexCache.set(source, compiled);
  }
  return compiled;
}

/** Does `value` (undefined = absent) meet one constraint? */
export function matchConstraint(constraint: Constraint, value: unknown): boolean {
  const operator = asOperator(constraint);
  if (operator === null) return jsonEqual(constraint, value);
  if ('any' in operator) return value !== undefined;
  if ('default' in operator) return value === undefined || jsonEqual(operator.default, value);
  if ('one_of' in operator) return operator.one_of.some((option) => jsonEqual(option, value));
  if ('regex' in operator) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
    return compile(operator.regex)?.test(String(value)) ?? false;
  }
  if (typeof value === 'string') return value.toLowerCase().includes(operator.contains.toLowerCase());
  if (Array.isArray(value)) return value.some((element) => jsonEqual(element, operator.contains));
  return false;
}

/** One field that did not meet its constraint. */
export interface ConstraintMismatch {
  field: string;
  expected: Constraint;
  actual: unknown;
}

/**
 * Check every field constraint against an object of values. Extra fields in
 * `values` are allowed (constraints name only what the task cares about).
 */
export function matchFields(
  constraints: ArgConstraints,
  values: unknown,
): { pass: boolean; mismatches: ConstraintMismatch[] } {
  const object =
    values !== null && typeof values === 'object' && !Array.isArray(values) ? (values as Record<string, unknown>) : {};
  const mismatches: ConstraintMismatch[] = [];
  for (const [field, constraint] of Object.entries(constraints)) {
    const actual = Object.hasOwn(object, field) ? object[field] : undefined;
    if (!matchConstraint(constraint, actual)) mismatches.push({ field, expected: constraint, actual: actual ?? null });
  }
  return { pass: mismatches.length === 0, mismatches };
}
