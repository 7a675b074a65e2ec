import { sweepCaption, sweepRows, sweepTable } from './sweep.ts';
import {
  HEADLINE_COLUMNS,
  headlineGroups,
  modelLabels,
  rescoredNote,
  SYNTHETIC_BANNER,
  formatPercent,
} from './headline.ts';
import type { RunData } from './run-data.ts';
import { errorLines, incompleteNote, turnLine, usageLines } from './run-facts.ts';
import { RETRIEVAL_HEADER, RETRIEVAL_NOTE, retrievalGroups, retrievalRow } from './retrieval-rows.ts';
import { describeFailingGraders, isFlipped, mostFailures, successRate } from './task-outcomes.ts';

/** Caps that keep report.md under ~60 lines, so it fits a PR comment. */
const MAX_HEADLINE_ROWS = 24;
const MAX_FAILURE_ROWS = 8;
const MAX_FLIPPED_NAMED = 6;

/** Escapes text for a Markdown table cell or inline span. */
export function markdownCell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ')
    .replace(/`/g, "'");
}

/** A Markdown table; `numeric` lists the right-aligned columns. */
function table(header: string[], rows: string[][], numeric: (index: number) => boolean): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, index) => (numeric(index) ? '--:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

/** The sweep table of a `toolmark sweep` run (nothing for another run). */
function sweepSection(data: RunData): string[] {
  const rows = sweepRows(data.manifest, data.summary);
  if (rows.length === 0) return [];
  const [header, ...cells] = sweepTable(rows);
  const numeric = (index: number) => header![index] !== 'model' && header![index] !== 'loading';
  return [
    '### Sweep: selection against catalog size',
    '',
    ...table(
      header!,
      cells.map((row) => row.map(markdownCell)),
      numeric,
    ),
    '',
    `<sub>${markdownCell(sweepCaption(data.manifest, data.synthetic))}</sub>`,
    '',
  ];
}

/** Renders report.md: headline table, errored count, tasks with most failures, flipped tasks. */
export function renderMarkdown(data: RunData): string {
  const { manifest, summary, totals } = data;
  const trials = manifest.trials;
  const models = modelLabels(summary, manifest);
  const several = models.length > 1;
  const groups = headlineGroups(summary);
  const surfaces = new Set(groups.map((group) => group.surface));
  const splits = new Set(groups.map((group) => group.split));
  const tasks = new Set(data.outcomes.map((outcome) => `${outcome.domain}/${outcome.task}`));
  const lines: string[] = [`## toolmark run \`${markdownCell(summary.run_id)}\``, ''];

  if (data.synthetic) lines.push(`> ⚠️ **${SYNTHETIC_BANNER.replace(':', ':**')}`, '');
  if (manifest.rescored) lines.push(`> ${rescoredNote(manifest.rescored)}`, '');
  const incomplete = incompleteNote(data.facts);
  if (incomplete) lines.push(`> ⚠️ **${markdownCell(incomplete)}**`, '');

  const erroredNote =
    totals.errored === 0
      ? 'no errored trials'
      : `**${totals.errored} errored** (provider failures, not scored as misses)`;
  lines.push(
    `${surfaces.size} surface${surfaces.size === 1 ? '' : 's'} × ${splits.size} split${splits.size === 1 ? '' : 's'} · ` +
      `${tasks.size} tasks × ${trials} trial${trials === 1 ? '' : 's'} · ${totals.trials} trials, ${erroredNote} · ` +
      `${models.map((label) => `\`${markdownCell(label)}\``).join(', ')}`,
    '',
  );

  const header = [
    ...(several ? ['model'] : []),
    'surface',
    'split',
    'n',
    ...HEADLINE_COLUMNS.map((column) => column.label.replace('pass^k', `pass^${trials}`)),
  ];
  const rows = groups
    .slice(0, MAX_HEADLINE_ROWS)
    .map((group) => [
      ...(several ? [markdownCell(`${group.provider}/${group.model}`)] : []),
      markdownCell(group.surface),
      group.split,
      String(group.task_success.n),
      ...HEADLINE_COLUMNS.map((column) => column.cell(group, trials)),
    ]);
  if (rows.length === 0) lines.push('_No summary groups: the run has no scored trials._');
  else lines.push(...table(header, rows, (index) => index >= header.indexOf('n')));
  if (groups.length > MAX_HEADLINE_ROWS)
    lines.push(`_…and ${groups.length - MAX_HEADLINE_ROWS} more rows in report.html._`);
  lines.push(
    '',
    `<sub>Rates: value [Wilson 95% interval], in %. n = scored trials. unsafe = count/proposals (effects: count/executed writes). ` +
      `pass^${trials}: chance that all ${trials} trials of a task pass, averaged over tasks.</sub>`,
    '',
  );
  lines.push(...sweepSection(data));
  lines.push(
    ...usageLines(data.facts).map((line) => `- ${markdownCell(line)}`),
    `- ${markdownCell(turnLine(data.facts))}`,
    '',
  );
  const deferred = retrievalGroups(summary);
  if (deferred.length > 0) {
    const rows = deferred.map((group) => retrievalRow(group).map(markdownCell));
    lines.push('### Deferred loading: retrieval', '', ...table(RETRIEVAL_HEADER, rows, (index) => index >= 2));
    lines.push('', `<sub>${RETRIEVAL_NOTE}</sub>`, '');
  }
  const errors = errorLines(data.facts);
  if (errors.length > 0) lines.push('### Errors', '', ...errors.map((line) => `- ${markdownCell(line)}`), '');

  const worst = mostFailures(data.outcomes, MAX_FAILURE_ROWS);
  if (worst.length > 0) {
    lines.push('### Tasks with the most failures', '');
    lines.push(
      ...table(
        [...(several ? ['model'] : []), 'task', 'surface', 'split · kind', 'success', 'failing verdicts'],
        worst.map((outcome) => [
          ...(several ? [markdownCell(`${outcome.provider}/${outcome.model}`)] : []),
          `\`${markdownCell(outcome.task)}\``,
          markdownCell(outcome.surface),
          `${outcome.split} · ${outcome.kind}`,
          `${outcome.successes}/${outcome.completed} (${formatPercent(successRate(outcome))})`,
          markdownCell(describeFailingGraders(outcome) || '–'),
        ]),
        (index) => index === (several ? 4 : 3),
      ),
      '',
    );
  }

  const flipped = data.outcomes.filter(isFlipped);
  if (flipped.length > 0) {
    const named = flipped
      .slice(0, MAX_FLIPPED_NAMED)
      .map(
        (outcome) =>
          `\`${markdownCell(outcome.task)}\` on ${markdownCell(outcome.surface)} (${outcome.successes}/${outcome.completed})`,
      );
    const more = flipped.length > MAX_FLIPPED_NAMED ? `, and ${flipped.length - MAX_FLIPPED_NAMED} more` : '';
    lines.push(
      `**Flipped** (trials of one task disagree): ${flipped.length} of ${data.outcomes.length} task × surface cases — ${named.join(', ')}${more}.`,
      '',
    );
  }

  lines.push('Charts, confusion matrices and every trial: `report.html` · CI: `junit.xml`');
  return `${lines.join('\n')}\n`;
}
