import {
  changedTools,
  type CompareReview,
  type ComparedMetric,
  type Comparison,
  type SurfaceDiff,
  type WordDiffPart,
} from '../spec/index.ts';
import { moreTasksToDetect } from '../stats/index.ts';
import { interval, pValue, value } from './compare-markdown.ts';
import {
  DECISION_LABELS,
  decisionSentence,
  providerDisagreement,
  decisionTone,
  metricVerdict,
  surfaceSummary,
  toolChangeWords,
  costChange,
} from './compare-wording.ts';
import { markdownCell, markdownCode } from './markdown-escape.ts';

/**
 * report.md of `toolmark compare --out`, for a pull request comment: the
 * verdict first, the surface diff summary, the verdicts per split, the
 * flipped tasks (capped, with their count) — within GitHub's comment limit.
 * compare.html has everything at full length.
 */

/** GitHub rejects a comment body over 65,536 characters; keep a margin for the footer. */
export const COMMENT_LIMIT = 65_536;
const BUDGET = COMMENT_LIMIT - 1_000;
const MAX_FLIPPED_ROWS = 15;
const MAX_TOOL_DIFFS = 12;

const EMOJI = { good: '✅', bad: '❌', warn: '⚠️', neutral: 'ℹ️' } as const;

function htmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A word diff as GitHub renders it: deletions struck, additions underlined-bold. */
export function markdownWordDiff(parts: readonly WordDiffPart[]): string {
  return parts
    .map((part) => {
      const text = htmlText(part.text).replace(/\r?\n/g, ' ');
      return part.op === 'same' ? text : part.op === 'del' ? `<del>${text}</del>` : `<ins><b>${text}</b></ins>`;
    })
    .join('');
}

function verdictRows(comparison: Comparison, split: string): string[][] {
  const section = comparison.sections.find((entry) => entry.split === split && entry.kind === 'all');
  if (!section) return [];
  return section.metrics.map((metric: ComparedMetric) => [
    `${code(metric.metric)} (n=${metric.n})`,
    value(metric, metric.a),
    value(metric, metric.b),
    interval(metric),
    pValue(metric),
    metric.binary ? (metric.mde === null ? '∞' : `${(metric.mde * 100).toFixed(1)} pp`) : '—',
    metricVerdict(metric, moreTasksToDetect(metric)),
  ]);
}

/** Inline code in a table cell: the text escaped, never its backticks. */
const code = markdownCode;

/** A table of cells already escaped (plain text through `markdownCell`, code through `code`). */
function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

function surfaceSection(diff: SurfaceDiff, withDiffs: boolean): string[] {
  const title = `**${markdownCell(diff.domain)}**: ${markdownCode(diff.a?.id ?? '—')} → ${markdownCode(diff.b?.id ?? '—')}`;
  const lines = [`${title} — ${surfaceSummary(diff)}.`, ''];
  if (diff.unavailable !== null) return lines;
  const changed = changedTools(diff);
  if (changed.length === 0) return lines;
  lines.push(
    ...table(
      ['tool', 'change', 'tokens', 'bytes'],
      changed.map((tool) => [
        code(tool.name.b ?? tool.name.a ?? tool.key),
        markdownCell(toolChangeWords(tool, diff.reordered)),
        costChange(tool.cost.a, tool.cost.b),
        costChange(tool.cost.a, tool.cost.b, 'bytes'),
      ]),
    ),
    '',
  );
  const texts = changed.filter((tool) => tool.texts.length > 0 || tool.schema.length > 0).slice(0, MAX_TOOL_DIFFS);
  if (withDiffs && texts.length > 0) {
    lines.push('<details><summary>Word-level diffs of descriptions and parameter texts</summary>', '');
    for (const tool of texts) {
      lines.push(`**\`${htmlText(tool.name.b ?? tool.name.a ?? tool.key)}\`**`, '');
      for (const text of tool.texts) lines.push(`- ${htmlText(text.field)}: ${markdownWordDiff(text.diff)}`);
      for (const change of tool.schema) lines.push(`- schema \`${htmlText(change.path)}\`: ${htmlText(change.change)}`);
      lines.push('');
    }
    if (changed.length > texts.length)
      lines.push(`…and ${changed.length - texts.length} more tools in compare.html.`, '');
    lines.push('</details>', '');
  }
  return lines;
}

function flippedSection(review: CompareReview, cap: number): string[] {
  if (review.flippedTotal === 0) return ['**Flipped tasks**: none — no task changed its success count.', ''];
  const rows = review.flipped
    .slice(0, cap)
    .map((task) => [
      task.direction === 'worse' ? '🔻 worse' : '🔺 better',
      code(task.task),
      ...(review.byProvider.length ? [markdownCell(task.provider ?? '')] : []),
      `${task.split === 'heldout' ? 'held-out' : task.split} · ${task.kind}`,
      `${task.a.c}/${task.a.n} → ${task.b.c}/${task.b.n}`,
      task.changedTools.length ? task.changedTools.map(code).join(', ') : '—',
    ]);
  const shown = Math.min(cap, review.flipped.length);
  return [
    `### Flipped tasks: ${review.flippedTotal}${review.flippedTotal > shown ? ` (showing ${shown}; all in compare.html)` : ''}`,
    '',
    ...table(
      [
        '',
        'task',
        ...(review.byProvider.length ? ['provider'] : []),
        'split · kind',
        'success A → B',
        'changed tools it touches',
      ],
      rows,
    ),
    '',
  ];
}

function render(review: CompareReview, options: { diffs: boolean; flipped: number; kinds: boolean }): string {
  const { comparison, decision } = review;
  const tone = decisionTone(decision.outcome);
  const lines = [
    `## toolmark compare: ${markdownCode(comparison.a.label)} → ${markdownCode(comparison.b.label)}`,
    '',
    `### ${EMOJI[tone]} ${DECISION_LABELS[decision.outcome]}`,
    '',
    decisionSentence(decision, comparison),
    '',
  ];
  const disagreement = providerDisagreement(review);
  if (disagreement) lines.push(`**${disagreement}**`, '');
  if (comparison.a.synthetic || comparison.b.synthetic)
    lines.push('> ⚠️ **Synthetic fixtures:** scores of synthetic cassettes, not of any real model.', '');
  if (review.byProvider.length > 0) {
    lines.push(
      ...table(
        ['provider', 'train task success', 'held-out task success', 'decision'],
        review.byProvider.map((entry) => {
          const success = (split: string) =>
            entry.comparison.sections
              .find((section) => section.split === split && section.kind === 'all')
              ?.metrics.find((metric) => metric.metric === 'task_success');
          const cell = (metric: ComparedMetric | undefined) =>
            metric && metric.a !== null
              ? `${value(metric, metric.a)} → ${value(metric, metric.b)}, ${interval(metric)}`
              : '—';
          return [
            code(entry.provider),
            cell(success('train')),
            cell(success('heldout')),
            `${EMOJI[decisionTone(entry.decision.outcome)]} ${DECISION_LABELS[entry.decision.outcome]}`,
          ];
        }),
      ),
      '',
    );
  }
  if (review.surfaceDiffs.length > 0) {
    lines.push('### Surface diff', '');
    for (const diff of review.surfaceDiffs) lines.push(...surfaceSection(diff, options.diffs));
  }
  const header = ['metric', 'A', 'B', 'B − A [95% CI]', 'McNemar p (b/c)', 'MDE', 'verdict'];
  for (const split of ['train', 'heldout', 'all'] as const) {
    const rows = verdictRows(comparison, split);
    // `all` only when it is the only split asked for: it repeats train and held-out.
    if (rows.length === 0 || (split === 'all' && comparison.sections.some((section) => section.split !== 'all')))
      continue;
    const pairs = comparison.sections.find((section) => section.split === split && section.kind === 'all')!.pairs;
    lines.push(
      `### ${split === 'heldout' ? 'Held-out' : split === 'train' ? 'Train' : 'All splits'}: ${pairs} pairs`,
      '',
      ...table(header, rows),
      '',
    );
    if (options.kinds) {
      const kinds = comparison.sections.filter((section) => section.split === split && section.kind !== 'all');
      const kindRows = kinds.map((section) => {
        const metric = section.metrics.find((entry) => entry.metric === 'task_success')!;
        return [
          section.kind,
          String(section.pairs),
          `${value(metric, metric.a)} → ${value(metric, metric.b)}`,
          interval(metric),
          pValue(metric),
          metricVerdict(metric, moreTasksToDetect(metric)),
        ];
      });
      if (kindRows.length > 1)
        lines.push(
          '<details><summary>Task success by kind</summary>',
          '',
          ...table(['kind', 'pairs', 'A → B', 'B − A [95% CI]', 'p (b/c)', 'verdict'], kindRows),
          '',
          '</details>',
          '',
        );
    }
  }
  lines.push(...flippedSection(review, options.flipped));
  const { pairing } = comparison;
  lines.push(
    `<sub>Paired by ${pairing.key.join(', ')}: ${pairing.pairs} pairs; ${pairing.unpaired_a} trials only in A, ${pairing.unpaired_b} only in B; ${pairing.errored} pairs dropped (errored). ` +
      'better/worse: the 95% paired-bootstrap interval excludes 0 and, for pass/fail metrics, McNemar p < 0.05. ' +
      'Transcripts side by side, confusion and cost deltas: compare.html.</sub>',
  );
  for (const note of review.notes) lines.push('', `<sub>${htmlText(note)}</sub>`);
  return `${lines.join('\n')}\n`;
}

/**
 * Render the PR-comment report. It is shortened until it fits the comment
 * limit: first the per-kind tables and word diffs go, then flipped rows.
 */
export function renderComparePullRequest(review: CompareReview): string {
  const attempts = [
    { diffs: true, kinds: true, flipped: MAX_FLIPPED_ROWS },
    { diffs: true, kinds: false, flipped: MAX_FLIPPED_ROWS },
    { diffs: false, kinds: false, flipped: MAX_FLIPPED_ROWS },
    { diffs: false, kinds: false, flipped: 5 },
  ];
  for (const attempt of attempts) {
    const text = render(review, attempt);
    if (text.length <= BUDGET) return text;
  }
  const text = render(review, attempts[attempts.length - 1]!);
  return `${text.slice(0, BUDGET)}\n\n_…cut to fit a comment; the full review is in compare.html._\n`;
}
