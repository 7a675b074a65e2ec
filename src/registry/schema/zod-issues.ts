import type { Violation } from './tool-schema.ts';

/** The issue fields zod 3 and zod 4 have in common. */
export interface ZodLikeIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** `items[0].id`; `(root)` for the value itself. The form the shipped cassettes were recorded with. */
export function dottedPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/**
 * Zod issues as violations: path and zod's own message, nothing more. Zod's
 * messages already name what was expected (`Invalid option: expected one of
 * "open"|"waiting"`), and adding fields would change what models were shown
 * (and recorded) for every zod domain.
 */
export function violationsOfZodIssues(issues: readonly ZodLikeIssue[]): Violation[] {
  return issues.map((issue) => ({ path: dottedPath(issue.path), message: issue.message }));
}
