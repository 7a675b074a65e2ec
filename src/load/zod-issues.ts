import type { z } from 'zod';
import type { ConfigIssue } from '../spec/index.ts';
import type { FieldPath, SourceFile } from './source-file.ts';
import { closest } from '../spec/suggest.ts';

type AnySchema = z.core.$ZodType;

/** Peel wrappers (optional, default, lazy, …) off a schema. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let guard = 0; guard < 20; guard++) {
    const def = current._zod.def as any;
    if (
      def.type === 'optional' ||
      def.type === 'nullable' ||
      def.type === 'default' ||
      def.type === 'prefault' ||
      def.type === 'readonly' ||
      def.type === 'catch'
    )
      current = def.innerType;
    else if (def.type === 'lazy') current = def.getter();
    else if (def.type === 'pipe') current = def.in;
    else return current;
  }
  return current;
}

/** The sub-schema describing the value at `path`, or undefined when it cannot be followed. */
export function schemaAt(schema: AnySchema, path: FieldPath): AnySchema | undefined {
  let current: AnySchema | undefined = unwrap(schema);
  for (const part of path) {
    if (!current) return undefined;
    const def = current._zod.def as any;
    if (def.type === 'object' && typeof part === 'string') current = def.shape[part];
    else if (def.type === 'array' && typeof part === 'number') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else if (def.type === 'union') {
      const objects = (def.options as AnySchema[])
        .map(unwrap)
        .filter((option) => (option._zod.def as any).type === 'object');
      current = objects.map((option) => schemaAt(option, [part])).find((found) => found !== undefined);
    } else return undefined;
    current = current ? unwrap(current) : undefined;
  }
  return current;
}

/** Field names an object schema at `path` accepts. */
export function knownKeys(schema: AnySchema, path: FieldPath): string[] {
  const target = schemaAt(schema, path);
  if (!target) return [];
  const def = target._zod.def as any;
  if (def.type === 'object') return Object.keys(def.shape);
  if (def.type === 'union') {
    return (def.options as AnySchema[])
      .map(unwrap)
      .flatMap((option) =>
        (option._zod.def as any).type === 'object' ? Object.keys((option._zod.def as any).shape) : [],
      );
  }
  return [];
}

function typeName(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function valueAt(value: unknown, path: FieldPath): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part as any];
  }
  return current;
}

/** A union failed in every branch: report the branch that got furthest (deepest issue). */
function bestUnionBranch(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] | undefined {
  let best: z.core.$ZodIssue[] | undefined;
  let bestDepth = -1;
  for (const branch of issue.errors) {
    const depth = Math.max(
      ...branch.map((inner) => (inner.code === 'invalid_type' ? inner.path.length : inner.path.length + 0.5)),
    );
    if (depth > bestDepth) {
      best = branch;
      bestDepth = depth;
    }
  }
  return bestDepth > 0 ? best : undefined;
}

/**
 * Turn zod's issues for a parsed file into located, readable issues:
 * unknown fields get a "did you mean", enums list their options and the
 * nearest one, wrong types say what was found.
 */
export function zodIssuesToConfigIssues(
  source: SourceFile,
  schema: AnySchema,
  error: z.ZodError,
  value: unknown,
  base: FieldPath = [],
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const visit = (issue: z.core.$ZodIssue, prefix: FieldPath) => {
    const path = [...prefix, ...issue.path];
    const schemaPath = path.slice(base.length);
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeys(schema, schemaPath);
        for (const key of issue.keys) {
          out.push(
            source.issue(path, {
              key,
              message: `unknown field "${key}"`,
              expected: known.length > 0 ? `one of ${known.join(', ')}` : undefined,
              suggestion: closest(key, known),
            }),
          );
        }
        return;
      }
      case 'invalid_value': {
        const found = valueAt(value, schemaPath);
        const options = issue.values.map((option) => String(option));
        const suggestion = typeof found === 'string' ? closest(found, options) : undefined;
        const message =
          issue.values.length === 1
            ? `must be ${JSON.stringify(issue.values[0])}, got ${typeName(found)}`
            : `unknown value ${JSON.stringify(found)}`;
        out.push(
          source.issue(path, {
            message,
            expected: issue.values.length > 1 ? `one of ${options.join(', ')}` : undefined,
            suggestion,
          }),
        );
        return;
      }
      case 'invalid_type': {
        const found = valueAt(value, schemaPath);
        const message = found === undefined ? 'required field is missing' : `wrong type: got ${typeName(found)}`;
        out.push(
          source.issue(path, {
            message,
            expected:
              issue.expected === 'record' ? 'a mapping' : issue.expected === 'array' ? 'a list' : issue.expected,
          }),
        );
        return;
      }
      case 'invalid_union': {
        const branch = bestUnionBranch(issue);
        if (branch) for (const inner of branch) visit(inner, path);
        else
          out.push(
            source.issue(path, {
              message: `invalid value ${typeName(valueAt(value, schemaPath))}`,
              expected: issue.message,
            }),
          );
        return;
      }
      default:
        out.push(source.issue(path, { message: issue.message }));
    }
  };
  for (const issue of error.issues) visit(issue, base);
  return out;
}
