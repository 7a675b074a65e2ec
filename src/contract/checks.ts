import { canonicalJson, type ToolResult } from '../spec/index.ts';
import type { ContractExpectation } from './case-file.ts';

/** One expectation field checked against what happened. */
export interface Check {
  name: string;
  pass: boolean;
  expected: unknown;
  actual: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Does `actual` contain everything in `expected` (objects by key, everything else by value)? */
export function containsSubset(actual: unknown, expected: unknown): boolean {
  if (isRecord(expected))
    return isRecord(actual) && Object.entries(expected).every(([key, value]) => containsSubset(actual[key], value));
  return canonicalJson(actual) === canonicalJson(expected);
}

/** Check a case's expectation against its results (final call, all calls) and its executed writes. */
export function checkExpectation(
  expect: ContractExpectation,
  observed: { final: ToolResult; results: readonly ToolResult[]; sideEffects: number },
): Check[] {
  const { final } = observed;
  const output = final.ok ? final.output : undefined;
  const checks: Check[] = [
    { name: 'ok', pass: final.ok === expect.ok, expected: expect.ok, actual: final.ok },
    {
      name: 'side_effects',
      pass: observed.sideEffects === expect.side_effects,
      expected: expect.side_effects,
      actual: observed.sideEffects,
    },
  ];
  if (expect.error_code !== undefined) {
    const actual = final.ok ? null : final.error.code;
    checks.push({ name: 'error_code', pass: actual === expect.error_code, expected: expect.error_code, actual });
  }
  if (expect.retryable !== undefined) {
    const actual = final.ok ? null : final.error.retryable;
    checks.push({ name: 'retryable', pass: actual === expect.retryable, expected: expect.retryable, actual });
  }
  if (expect.replayed !== undefined) {
    const actual = observed.results.some((result) => result.ok && result.replayed);
    checks.push({ name: 'replayed', pass: actual === expect.replayed, expected: expect.replayed, actual });
  }
  if (expect.output !== undefined) {
    checks.push({
      name: 'output',
      pass: containsSubset(output, expect.output),
      expected: expect.output,
      actual: output ?? null,
    });
  }
  if (expect.output_length !== undefined) {
    const list = isRecord(output) ? output[expect.output_length.field] : undefined;
    const actual = Array.isArray(list) ? list.length : null;
    checks.push({
      name: 'output_length',
      pass: actual !== null && actual <= expect.output_length.max,
      expected: `${expect.output_length.field}: at most ${expect.output_length.max}`,
      actual,
    });
  }
  if (expect.has_next_cursor !== undefined) {
    const cursor = isRecord(output) ? output.next_cursor : undefined;
    const actual = typeof cursor === 'string' && cursor.length > 0;
    checks.push({
      name: 'has_next_cursor',
      pass: actual === expect.has_next_cursor,
      expected: expect.has_next_cursor,
      actual,
    });
  }
  return checks;
}
