import { relative } from 'node:path';
import {
  actionOf,
  contractConflicts,
  definedAt,
  errorTableProblems,
  JsonSchemaError,
  toolSchemaOf,
  type Domain,
  type ToolSpec,
} from '../registry/index.ts';
import { RuntimeContract, type ConfigIssue } from '../spec/index.ts';
import { propertyNames } from './tool-schema.ts';
import { closest } from '../spec/suggest.ts';

/** Where an issue about a definition points: its `defineTool`/`defineDomain` call when known, else the domain file. */
function locate(root: string, target: unknown, fallback: ConfigIssue['file']): Pick<ConfigIssue, 'file' | 'line'> {
  const site = definedAt(target);
  return site ? { file: relative(root, site.file), line: site.line } : { file: fallback };
}

function schemaProblem(error: unknown): { message: string; expected?: string } {
  if (error instanceof JsonSchemaError) return { message: error.message, expected: error.expected };
  return {
    message: `cannot be converted for the model: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
  };
}

/** A tool's schemas: each must adapt to the seam (the input also to a model payload). */
function checkSchemas(
  tool: ToolSpec,
  field: string,
  issue: (details: Omit<ConfigIssue, 'file' | 'line'>) => void,
): void {
  for (const side of ['input', 'output'] as const) {
    try {
      const schema = toolSchemaOf(tool[side]);
      if (side === 'input') void schema.jsonSchema;
    } catch (error) {
      issue({ field: `${field}.${side}`, ...schemaProblem(error) });
    }
  }
}

/**
 * Check a domain's tools and error table against its actions, before any
 * model call: schemas usable, each tool's action known, no tool contradicting
 * its action's contract (declared once, on the action), the idempotency key
 * a field of the tool's input, and every error code well formed. Issues
 * point at the `defineTool` call (file:line) when the tool was made with it.
 */
export function checkDomainTools(root: string, domain: Domain, display: string, issues: ConfigIssue[]): void {
  const actions = new Map(domain.actions.map((action) => [action.id, action]));
  domain.tools.forEach((tool, index) => {
    const field = `tools[${index}]`;
    // Located only when there is an issue: reading the site formats its stack trace through the
    // source maps (~15 ms of the shipped example's `validate` when done for every tool).
    const issue = (details: Omit<ConfigIssue, 'file' | 'line'>) =>
      issues.push({ ...locate(root, tool, display), ...details });
    checkSchemas(tool, field, issue);
    if (tool.action !== undefined && !actions.has(tool.action)) {
      issue({
        field: `${field}.action`,
        message: `unknown action "${tool.action}"`,
        expected: `an action of domain ${domain.name}`,
        suggestion: closest(tool.action, [...actions.keys()]),
      });
      return;
    }
    const runtime = RuntimeContract.safeParse(tool.runtime ?? {});
    if (!runtime.success) {
      for (const problem of runtime.error.issues)
        issue({
          field: [`${field}.runtime`, ...problem.path].join('.'),
          message: problem.message,
          expected:
            'timeout_ms: an integer from 1 to 86400000 (24 h); retry: { transient: boolean, max_attempts: integer from 1 to 100 }',
        });
    }
    const action = actionOf(tool, actions);
    if (!action) return;
    for (const conflict of contractConflicts(tool, action)) {
      issue({
        field: `${field}.runtime.${conflict.field}`,
        message: `${JSON.stringify(conflict.tool)} contradicts its action "${action.id}", which declares ${JSON.stringify(conflict.action)}; the contract is declared once, on the action`,
        expected: `${JSON.stringify(conflict.action)}, or no ${conflict.field} here`,
      });
    }
    if (action.idempotency_key !== null) {
      let names: string[] = [];
      try {
        names = propertyNames(toolSchemaOf(tool.input).jsonSchema);
      } catch {
        // Reported by checkSchemas.
      }
      if (names.length > 0 && !names.includes(action.idempotency_key)) {
        issue({
          field: `${field}.input`,
          message: `has no field "${action.idempotency_key}", the idempotency key its action "${action.id}" declares`,
          expected: `an input field named ${action.idempotency_key}`,
          suggestion: closest(action.idempotency_key, names),
        });
      }
    }
  });
  if (domain.errors !== undefined) {
    for (const problem of errorTableProblems(domain.errors))
      issues.push({
        ...locate(root, domain, display),
        field: problem.code === null ? 'errors' : `errors.${problem.code}`,
        message: problem.message,
        expected: problem.expected,
      });
  }
}
