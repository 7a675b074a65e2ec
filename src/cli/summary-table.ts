import { errorLines, turnLine, usageLines, type RunFacts } from '../report/index.ts';
import type { Rate, Summary, SummaryGroup } from '../spec/index.ts';

function percent(rate: Rate): string {
  return rate.value === null ? '–' : `${(rate.value * 100).toFixed(0)}%`;
}

const COLUMNS: { title: string; cell: (group: SummaryGroup) => string }[] = [
  { title: 'provider', cell: (group) => (group.model && group.model !== group.provider ? `${group.provider}:${group.model}` : group.provider) },
  { title: 'surface', cell: (group) => group.surface },
  { title: 'split', cell: (group) => group.split },
  { title: 'trials', cell: (group) => String(group.trials) },
  { title: 'success', cell: (group) => percent(group.task_success) },
  { title: 'selection', cell: (group) => percent(group.selection_accuracy) },
  { title: 'args valid', cell: (group) => percent(group.argument_validity) },
  { title: 'recovery', cell: (group) => percent(group.recovery_rate) },
  { title: 'unsafe', cell: (group) => String(group.unsafe_proposals.count) },
  { title: 'unsafe fx', cell: (group) => String(group.unsafe_side_effects.count) },
  { title: 'schema tok', cell: (group) => String(Math.round(group.schema_tokens)) },
  { title: 'errored', cell: (group) => String(group.errored) },
];

/**
 * The compact end-of-run table: one row per provider × surface × split for
 * the groups of kind `all` (per-kind figures are in the reports).
 */
export function formatSummaryTable(summary: Summary): string {
  const splitOrder = { train: 0, heldout: 1, all: 2 } as const;
  const groups = summary.groups
    .filter((group) => group.kind === 'all')
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model) || a.surface.localeCompare(b.surface) || splitOrder[a.split] - splitOrder[b.split]);
  if (groups.length === 0) return '(no finished trials)';
  const rows = [COLUMNS.map((column) => column.title), ...groups.map((group) => COLUMNS.map((column) => column.cell(group)))];
  const widths = COLUMNS.map((_column, index) => Math.max(...rows.map((row) => row[index]!.length)));
  // Text columns align left, numbers right.
  const line = (row: string[]) => row.map((cell, index) => (index < 3 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ').trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  const note = summary.synthetic ? '\nSynthetic fixtures: these numbers describe scripted behaviours, not any real model.' : '';
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n') + note;
}

/** After the table: usage per model, how the turns ended, and the errors grouped by message. */
export function formatRunFacts(facts: RunFacts): string {
  const errors = errorLines(facts);
  return [...usageLines(facts), turnLine(facts), ...(errors.length > 0 ? ['errors:', ...errors.map((line) => `  ${line}`)] : [])].join('\n') + '\n\n';
}
