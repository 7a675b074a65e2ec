import { KNOWN_ERROR_CODES, ToolErrorCategory, type KnownErrorCode, type ToolError } from '../spec/index.ts';

/** One error code a domain's handlers may return. */
export interface ErrorCodeSpec {
  category: ToolErrorCategory;
  /** Is trying again worth it? Default false. */
  retryable?: boolean;
  /** What it means, for the domain's readers (never sent to a model). */
  description?: string;
}

/** A domain's own error codes (`ticket_not_found`, `refund_window_closed`, …), declared on the domain. */
export type ErrorTable = Readonly<Record<string, ErrorCodeSpec>>;

/** The codes a domain's handlers may return: the framework's (SPEC §4) and its own. */
export type ErrorCodeOf<Table extends ErrorTable> = KnownErrorCode | (keyof Table & string);

/** `toolError` for one domain: the framework's codes and the domain's own. */
export type DomainToolError<Table extends ErrorTable> = (
  code: ErrorCodeOf<Table>,
  message: string,
  details?: Record<string, unknown>,
  overrides?: { retryable?: boolean },
) => ToolError;

/** Category and retryability of a code: the framework's table first, then the domain's. */
export function errorCodeSpec(
  code: string,
  table: ErrorTable = {},
): { category: ToolErrorCategory; retryable: boolean } | undefined {
  const known = (KNOWN_ERROR_CODES as Record<string, { category: ToolErrorCategory; retryable: boolean }>)[code];
  if (known) return known;
  const own = Object.hasOwn(table, code) ? table[code] : undefined;
  return own ? { category: own.category, retryable: own.retryable ?? false } : undefined;
}

/**
 * A `toolError` that knows a domain's codes, typed so a handler can only
 * name a declared one: `const toolError = toolErrorFor(ERRORS)` next to
 * `defineDomain({ errors: ERRORS, … })`.
 */
export function toolErrorFor<const Table extends ErrorTable>(table: Table): DomainToolError<Table> {
  return (code, message, details = {}, overrides = {}) => {
    const spec = errorCodeSpec(code, table);
    if (!spec) throw new Error(`error code "${code}" is declared neither by toolmark nor by this domain`);
    return { code, category: spec.category, message, retryable: overrides.retryable ?? spec.retryable, details };
  };
}

/** What is wrong with a domain's error table, per code (for the loader). */
export function errorTableProblems(table: unknown): { code: string | null; message: string; expected: string }[] {
  if (typeof table !== 'object' || table === null || Array.isArray(table))
    return [
      {
        code: null,
        message: 'errors must be an object of error codes',
        expected: '{ ticket_not_found: { category: "not_found" } }',
      },
    ];
  const problems: { code: string | null; message: string; expected: string }[] = [];
  for (const [code, spec] of Object.entries(table as Record<string, unknown>)) {
    const framework = (KNOWN_ERROR_CODES as Record<string, { category: string; retryable: boolean }>)[code];
    const parsed = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : null;
    if (!/^[a-z][a-z0-9_]*$/.test(code))
      problems.push({
        code,
        message: `error code "${code}" is not snake_case`,
        expected: 'a code such as ticket_not_found',
      });
    if (!parsed || !ToolErrorCategory.safeParse(parsed.category).success) {
      problems.push({
        code,
        message: `error code "${code}" has no valid category`,
        expected: `{ category: one of ${ToolErrorCategory.options.join(', ')}, retryable?: boolean }`,
      });
    } else if (parsed.retryable !== undefined && typeof parsed.retryable !== 'boolean') {
      problems.push({
        code,
        message: `error code "${code}" has a retryable that is not a boolean`,
        expected: 'retryable: true or false',
      });
    } else if (
      framework &&
      (framework.category !== parsed.category || framework.retryable !== (parsed.retryable ?? false))
    ) {
      problems.push({
        code,
        message: `"${code}" is one of toolmark's own codes (category ${framework.category}, retryable ${framework.retryable}) and cannot be redefined`,
        expected: "a code of the domain's own, or leave it out (framework codes need no declaration)",
      });
    }
  }
  return problems;
}
