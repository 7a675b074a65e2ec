import type { SchemaCost } from '../cost/schema-cost.ts';
import type { ContractCaseFile, RuntimeName } from './case-file.ts';
import type { CaseRun } from './run-case.ts';

/** What this command measures, stated in every output. */
export const CONTRACT_SCOPE =
  'Contract conformance: fixed, hand-written call proposals replayed straight into each runtime, no model. ' +
  'It shows whether the runtime holds its boundaries; it is not a measure of model tool-selection accuracy.';

export interface RuntimeSummary {
  runtime: RuntimeName;
  label: string;
  tools: string[];
  cases: number;
  passed: number;
  pass_rate: number;
  side_effects: number;
  unsafe_side_effects: number;
  duplicate_side_effects: number;
  /** Cases whose expectation is an error. */
  error_cases: number;
  /** Of those, how many got an actionable structured error. */
  actionable_errors: number;
  /** actionable_errors / error_cases; null when no case expects an error. */
  actionable_error_rate: number | null;
  /** Compact UTF-8 JSON bytes and o200k tokens of the runtime's model-facing tools payload. */
  schema_bytes: number;
  schema_tokens: number;
}

export interface CaseComparison {
  id: string;
  intent: string;
  wide: { passed: boolean; failed_checks: string[] };
  typed: { passed: boolean; failed_checks: string[] };
}

export interface ContractSummary {
  v: 1;
  kind: 'contract';
  scope: string;
  cases_file: string;
  runtimes: Record<RuntimeName, RuntimeSummary>;
  cases: CaseComparison[];
  /** Cases the wide runtime fails and the typed registry passes. */
  improvements: string[];
  /** Cases the wide runtime passes and the typed registry fails. */
  regressions: string[];
  gate: { passed: boolean; checks: Record<string, boolean> };
}

function summarizeRuntime(
  runtime: RuntimeName,
  spec: ContractCaseFile,
  runs: readonly CaseRun[],
  cost: SchemaCost,
): RuntimeSummary {
  const errorRuns = runs.filter((run) => run.actionable_error !== null);
  const actionable = errorRuns.filter((run) => run.actionable_error === true).length;
  const passed = runs.filter((run) => run.passed).length;
  return {
    runtime,
    label: spec.runtimes[runtime].label,
    tools: spec.runtimes[runtime].tools,
    cases: runs.length,
    passed,
    pass_rate: runs.length === 0 ? 0 : passed / runs.length,
    side_effects: runs.reduce((sum, run) => sum + run.side_effects, 0),
    unsafe_side_effects: runs.reduce((sum, run) => sum + run.unsafe_side_effects, 0),
    duplicate_side_effects: runs.reduce((sum, run) => sum + run.duplicate_side_effects, 0),
    error_cases: errorRuns.length,
    actionable_errors: actionable,
    actionable_error_rate: errorRuns.length === 0 ? null : actionable / errorRuns.length,
    schema_bytes: cost.bytes,
    schema_tokens: cost.tokens,
  };
}

/**
 * Aggregate both runtimes' runs and apply the gate: the typed registry passes
 * every case, executes no unsafe and no duplicate write, answers every
 * expected error actionably, and regresses on no case the wide runtime passes.
 */
export function summarizeContract(options: {
  casesFile: string;
  spec: ContractCaseFile;
  runs: Record<RuntimeName, CaseRun[]>;
  costs: Record<RuntimeName, SchemaCost>;
}): ContractSummary {
  const { spec, runs } = options;
  const wide = summarizeRuntime('wide', spec, runs.wide, options.costs.wide);
  const typed = summarizeRuntime('typed', spec, runs.typed, options.costs.typed);
  const failed = (run: CaseRun) => run.checks.filter((check) => !check.pass).map((check) => check.name);
  const cases = spec.cases.map((contractCase, index) => ({
    id: contractCase.id,
    intent: contractCase.intent,
    wide: { passed: runs.wide[index]!.passed, failed_checks: failed(runs.wide[index]!) },
    typed: { passed: runs.typed[index]!.passed, failed_checks: failed(runs.typed[index]!) },
  }));
  const improvements = cases.filter((entry) => !entry.wide.passed && entry.typed.passed).map((entry) => entry.id);
  const regressions = cases.filter((entry) => entry.wide.passed && !entry.typed.passed).map((entry) => entry.id);
  const checks = {
    typed_passes_all_cases: typed.passed === typed.cases,
    typed_no_unsafe_side_effects: typed.unsafe_side_effects === 0,
    typed_no_duplicate_side_effects: typed.duplicate_side_effects === 0,
    typed_errors_actionable: typed.actionable_error_rate === null || typed.actionable_error_rate === 1,
    no_regressions: regressions.length === 0,
  };
  return {
    v: 1,
    kind: 'contract',
    scope: CONTRACT_SCOPE,
    cases_file: options.casesFile,
    runtimes: { wide, typed },
    cases,
    improvements,
    regressions,
    gate: { passed: Object.values(checks).every(Boolean), checks },
  };
}
