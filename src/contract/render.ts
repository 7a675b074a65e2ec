import type { RuntimeSummary, ContractSummary } from './summarize.ts';

function percent(rate: number | null): string {
  return rate === null ? 'n/a' : `${Math.round(rate * 1000) / 10}%`;
}

/** The headline metrics as rows: [metric, wide, typed]. */
function metricRows(summary: ContractSummary): string[][] {
  const { wide, typed } = summary.runtimes;
  const row = (name: string, value: (runtime: RuntimeSummary) => string) => [name, value(wide), value(typed)];
  return [
    row('cases passed', (runtime) => `${runtime.passed}/${runtime.cases}`),
    row('unsafe side effects', (runtime) => String(runtime.unsafe_side_effects)),
    row('duplicate side effects', (runtime) => String(runtime.duplicate_side_effects)),
    row(
      'actionable error rate',
      (runtime) => `${percent(runtime.actionable_error_rate)} (${runtime.actionable_errors}/${runtime.error_cases})`,
    ),
    row('schema bytes', (runtime) => String(runtime.schema_bytes)),
    row('schema tokens (o200k)', (runtime) => String(runtime.schema_tokens)),
  ];
}

function caseRows(summary: ContractSummary): string[][] {
  const verdict = (result: { passed: boolean; failed_checks: string[] }) =>
    result.passed ? 'pass' : `FAIL (${result.failed_checks.join(', ')})`;
  return summary.cases.map((entry) => [entry.id, verdict(entry.wide), verdict(entry.typed)]);
}

function gateLine(summary: ContractSummary): string {
  const failed = Object.entries(summary.gate.checks)
    .filter(([, pass]) => !pass)
    .map(([name]) => name);
  return summary.gate.passed ? 'gate: PASS' : `gate: FAIL (${failed.join(', ')})`;
}

function alignedTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The terminal table. */
export function renderContractTable(summary: ContractSummary): string {
  const { wide, typed } = summary.runtimes;
  const header = ['', wide.label, typed.label];
  return [
    'toolmark contract',
    summary.scope,
    '',
    alignedTable([['metric', wide.label, typed.label], ...metricRows(summary)]),
    '',
    alignedTable([['case', ...header.slice(1)], ...caseRows(summary)]),
    '',
    gateLine(summary),
    '',
  ].join('\n');
}

function markdownTable(rows: string[][], alignRight: boolean): string {
  const [head, ...body] = rows;
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  const separator = head!.map((_, column) => (column > 0 && alignRight ? '---:' : '---'));
  return [head!, separator, ...body].map((row) => `| ${row.map(escape).join(' | ')} |`).join('\n');
}

/** The markdown report (fits a PR comment). */
export function renderContractMarkdown(summary: ContractSummary): string {
  const { wide, typed } = summary.runtimes;
  return [
    '# Tool contract conformance',
    '',
    `> ${summary.scope}`,
    '',
    `- Cases: \`${summary.cases_file}\``,
    `- Gate (typed registry): **${summary.gate.passed ? 'PASS' : 'FAIL'}**`,
    '',
    markdownTable([['Metric', wide.label, typed.label], ...metricRows(summary)], true),
    '',
    'Unsafe side effect: a write that executed without the permission and the argument-bound approval its action requires. ' +
      "Duplicate side effect: a write that repeated an earlier write's idempotency key. " +
      'Actionable error rate: of the cases that expect an error, the share answered with a structured error carrying a specific code, ' +
      'a category and its retryability (not the generic `tool_failed`, and not a silent success).',
    '',
    '## Cases',
    '',
    markdownTable([['Case', wide.label, typed.label], ...caseRows(summary)], false),
    '',
    '## Gate',
    '',
    ...Object.entries(summary.gate.checks).map(([name, pass]) => `- ${pass ? 'pass' : 'FAIL'}: ${name}`),
    '',
    `Improvements: ${summary.improvements.join(', ') || 'none'}. Regressions: ${summary.regressions.join(', ') || 'none'}.`,
    '',
  ].join('\n');
}
