import { errorLines, incompleteNote, turnLine, usageLines, type RunFacts } from '../report/index.ts';
import type { Manifest, Rate, Summary, SummaryGroup } from '../spec/index.ts';

/** `94% [89–97]`: a rate with its Wilson 95% interval, in whole percent. */
function withInterval(rate: Rate | undefined): string {
  if (rate === undefined || rate.value === null) return '–';
  const value = `${Math.round(rate.value * 100)}%`;
  return rate.ci95 ? `${value} [${Math.round(rate.ci95[0] * 100)}–${Math.round(rate.ci95[1] * 100)}]` : value;
}

/** One row per surface: train and held-out task success side by side, the rest over both splits. */
const COLUMNS: {
  title: string;
  cell: (row: { surface: string; train?: SummaryGroup; heldout?: SummaryGroup; all: SummaryGroup }) => string;
}[] = [
  { title: 'surface', cell: (row) => row.surface },
  { title: 'trials', cell: (row) => String(row.all.trials) },
  { title: 'success train', cell: (row) => withInterval(row.train?.task_success) },
  { title: 'success held-out', cell: (row) => withInterval(row.heldout?.task_success) },
  { title: 'selection', cell: (row) => withInterval(row.all.selection_accuracy) },
  { title: 'args valid', cell: (row) => withInterval(row.all.argument_validity) },
  { title: 'recovery', cell: (row) => withInterval(row.all.recovery_rate) },
  { title: 'unsafe', cell: (row) => String(row.all.unsafe_proposals.count) },
  { title: 'unsafe fx', cell: (row) => String(row.all.unsafe_side_effects.count) },
  { title: 'schema tok', cell: (row) => String(Math.round(row.all.schema_tokens)) },
  { title: 'errored', cell: (row) => String(row.all.errored) },
];

const providerLabel = (group: SummaryGroup) =>
  group.model && group.model !== group.provider ? `${group.provider}:${group.model}` : group.provider;

/**
 * The end-of-run table: a block per domain × provider (never one table
 * pooling them), a row per surface with train and held-out task success and
 * their Wilson 95% intervals; then, when given, the path of the HTML report.
 * Per-kind figures are in the reports.
 */
export function formatSummaryTable(
  summary: Summary,
  options: { manifest?: Manifest; htmlReport?: string } = {},
): string {
  const domainOf = new Map((options.manifest?.surfaces ?? []).map((surface) => [surface.id, surface.domain]));
  const groups = summary.groups.filter((group) => group.kind === 'all');
  if (groups.length === 0) return `(no finished trials)${options.htmlReport ? `\nreport: ${options.htmlReport}` : ''}`;
  const blocks = new Map<
    string,
    Map<string, { surface: string; train?: SummaryGroup; heldout?: SummaryGroup; all?: SummaryGroup }>
  >();
  for (const group of groups) {
    const key = `${domainOf.get(group.surface) ?? ''}\u0000${providerLabel(group)}`;
    const rows = blocks.get(key) ?? new Map();
    const row = rows.get(group.surface) ?? { surface: group.surface };
    row[group.split] = group;
    rows.set(group.surface, row);
    blocks.set(key, rows);
  }
  const ordered = [...blocks.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, rows]) => ({
      title: key.split('\u0000').filter(Boolean).join(' · '),
      rows: [...rows.values()]
        .filter((row) => row.all ?? row.train ?? row.heldout)
        .sort((left, right) => left.surface.localeCompare(right.surface))
        .map((row) => ({ ...row, all: (row.all ?? row.train ?? row.heldout)! })),
    }));
  // One set of column widths for every block, so the blocks line up.
  const cells = ordered.map((block) => block.rows.map((row) => COLUMNS.map((column) => column.cell(row))));
  const header = COLUMNS.map((column) => column.title);
  const widths = COLUMNS.map((_column, index) =>
    Math.max(header[index]!.length, ...cells.flat().map((row) => row[index]!.length)),
  );
  // The surface column aligns left, numbers right.
  const line = (row: string[]) =>
    row
      .map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  const lines: string[] = [];
  ordered.forEach((block, index) => {
    if (index > 0) lines.push('');
    lines.push(block.title, line(header), rule, ...cells[index]!.map(line));
  });
  lines.push('', 'Rates: value [Wilson 95% interval]; selection, args valid and recovery over both splits.');
  if (summary.synthetic)
    lines.push('Synthetic fixtures: these numbers describe scripted behaviours, not any real model.');
  if (options.htmlReport) lines.push(`report: ${options.htmlReport}`);
  return lines.join('\n');
}

/** After the table: usage per model, how the turns ended, and the errors grouped by message. */
export function formatRunFacts(facts: RunFacts): string {
  const errors = errorLines(facts);
  return (
    [
      // A partial merge says so first (an interrupted run ends with its own "interrupted" line).
      ...(facts.progress.partialShards.length > 0 ? [`warning: ${incompleteNote(facts)}`] : []),
      ...usageLines(facts),
      turnLine(facts),
      ...(errors.length > 0 ? ['errors:', ...errors.map((line) => `  ${line}`)] : []),
    ].join('\n') + '\n\n'
  );
}
