import { errorCodeSpec, type ErrorTable } from '../registry/index.ts';
import type { Fault, ToolError } from '../spec/index.ts';

/**
 * The task's faults for one trial: counts calls per action and says which
 * call a fault hits (the n-th call of its action, counting from 1).
 */
export class FaultSchedule {
  readonly #faults: readonly Fault[];
  /** Made at the first call counted: most tasks declare no faults, and every trial has a schedule. */
  #calls: Map<string, number> | null = null;

  constructor(faults: readonly Fault[]) {
    this.#faults = faults;
  }

  /** Count a call of `action` and return the fault it hits, if any. */
  next(action: string): Fault | null {
    // Most tasks declare no faults: nothing to count.
    if (this.#faults.length === 0) return null;
    const calls = (this.#calls ??= new Map());
    const count = (calls.get(action) ?? 0) + 1;
    calls.set(action, count);
    return this.#faults.find((fault) => fault.action === action && fault.on_call === count) ?? null;
  }
}

/** The structured error a fault returns instead of running the tool (category and retryability from the framework's or the domain's table). */
export function faultError(fault: Fault, errors?: ErrorTable): ToolError {
  const code = fault.error ?? 'tool_failed';
  const known = errorCodeSpec(code, errors);
  return {
    code,
    category: known?.category ?? 'internal',
    message: fault.message ?? `${fault.action} failed with ${code}`,
    retryable: known?.retryable ?? false,
    details: { injected_fault: true },
  };
}

/**
 * The real output with the fault's injected text added, as untrusted tool
 * output would carry it (an extra field the model reads like any other).
 */
export function injectIntoOutput(output: unknown, text: string): unknown {
  if (output !== null && typeof output === 'object' && !Array.isArray(output))
    return { ...(output as Record<string, unknown>), notice: text };
  return { result: output, notice: text };
}
