import type { ComparedMetric, CompareSection, CompareSide, Comparison, FlippedTask } from '../spec/index.ts';

/**
 * Markdown for `toolmark compare` (terminal and report.md): per split, a
 * table of every paired metric; per kind, task success and selection; the
 * flipped tasks; the held-out check; and the noise floor of an A/A compare.
 */

/** Metrics that are per-trial counts (shown as a mean per trial), not shares. */
const COUNT_METRICS: ReadonlySet<string> = new Set(['unsafe_proposals', 'unnecessary_calls']);
const MAX_FLIPPED = 10;

export const isCount = (metric: ComparedMetric) => COUNT_METRICS.has(metric.metric);

export function value(metric: ComparedMetric, number: number | null): string {
  if (number === null) return '—';
  return isCount(metric) ? number.toFixed(2) : `${(number * 100).toFixed(1)}%`;
}

export function delta(metric: ComparedMetric, number: number | null): string {
  if (number === null) return '—';
  const sign = number > 0 ? '+' : number < 0 ? '−' : '±';
  const magnitude = Math.abs(number);
  return isCount(metric) ? `${sign}${magnitude.toFixed(2)}` : `${sign}${(magnitude * 100).toFixed(1)} pp`;
}

export function interval(metric: ComparedMetric): string {
  if (metric.difference === null) return '—';
  return `${delta(metric, metric.difference)} [${delta(metric, metric.low)}, ${delta(metric, metric.high)}]`;
}

export function pValue(metric: ComparedMetric): string {
  if (metric.mcnemar === null) return '—';
  const p = metric.mcnemar.p;
  return `${p < 0.001 ? p.toExponential(1) : p.toPrecision(3)} (${metric.mcnemar.b}/${metric.mcnemar.c})`;
}

function verdict(metric: ComparedMetric): string {
  if (metric.verdict === 'better') return '**better**';
  if (metric.verdict === 'worse') return '**worse**';
  return metric.verdict;
}

function sideLine(name: string, side: CompareSide): string {
  const surface =
    side.surface ?? (side.surfaces.length === 1 ? side.surfaces[0] : `all surfaces (${side.surfaces.join(', ')})`);
  return `- **${name}** \`${side.label}\`: run \`${side.run_id}\`, surface \`${surface}\`, ${side.providers.join(', ') || 'no trials'}${side.synthetic ? ' (synthetic fixtures, not a real model)' : ''}`;
}

function tokens(section: CompareSection): string {
  const { a, b, difference } = section.schema_tokens;
  if (a === null || b === null || difference === null) return '';
  return `; schema tokens ${Math.round(a)} → ${Math.round(b)} (${difference >= 0 ? '+' : '−'}${Math.round(Math.abs(difference))})`;
}

function flippedList(tasks: readonly FlippedTask[]): string {
  const shown = tasks
    .slice(0, MAX_FLIPPED)
    .map((task) => `\`${task.task}\` ${task.a.c}/${task.a.n} → ${task.b.c}/${task.b.n}`);
  const more = tasks.length > MAX_FLIPPED ? `, and ${tasks.length - MAX_FLIPPED} more` : '';
  return shown.length ? shown.join(', ') + more : 'none';
}

function splitTable(section: CompareSection): string[] {
  const lines = [
    `## ${section.split === 'all' ? 'All splits' : section.split === 'heldout' ? 'Held-out' : 'Train'}: ${section.pairs} pairs${tokens(section)}`,
    '',
    '| metric | A | B | B − A [95% CI] | McNemar p (b/c) | MDE | verdict |',
    '|---|---:|---:|---|---:|---:|---|',
  ];
  for (const metric of section.metrics) {
    const mde = metric.binary ? (metric.mde === null ? '∞' : `${(metric.mde * 100).toFixed(1)} pp`) : '—';
    lines.push(
      `| ${metric.metric} (n=${metric.n}) | ${value(metric, metric.a)} | ${value(metric, metric.b)} | ${interval(metric)} | ${pValue(metric)} | ${mde} | ${verdict(metric)} |`,
    );
  }
  lines.push(
    '',
    `Tasks that got better (task success): ${flippedList(section.flipped.better)}.`,
    '',
    `Tasks that got worse: ${flippedList(section.flipped.worse)}.`,
    '',
  );
  return lines;
}

function kindTable(sections: readonly CompareSection[]): string[] {
  // One kind only: its row would repeat the split table.
  if (sections.length < 2) return [];
  const lines = [
    '| kind | pairs | task_success A → B | B − A [95% CI] | p | verdict | selection A → B | B − A [95% CI] | p | verdict |',
    '|---|---:|---|---|---:|---|---|---|---:|---|',
  ];
  for (const section of sections) {
    const cells = ['task_success', 'selection_accuracy'].flatMap((name) => {
      const metric = section.metrics.find((entry) => entry.metric === name)!;
      return [
        `${value(metric, metric.a)} → ${value(metric, metric.b)}`,
        interval(metric),
        pValue(metric),
        verdict(metric),
      ];
    });
    lines.push(`| ${section.kind} | ${section.pairs} | ${cells.join(' | ')} |`);
  }
  return ['### By kind', '', ...lines, ''];
}

function noiseFloorTable(comparison: Comparison): string[] {
  if (!comparison.aa || comparison.noise_floor.length === 0) return [];
  const lines = [
    '## Noise floor (A/A)',
    '',
    comparison.pairing.split_trials
      ? 'Same surface of one run: even trials are paired with odd trials, so both halves are independent samples of the same configuration.'
      : 'Both sides ran the same surface (same content hash) with the same provider and model.',
    'Any difference here is noise; a revision needs to beat the MDE to be detectable with this many pairs.',
    '',
    '| split | metric | pairs | observed B − A [95% CI] | MDE (α 0.05, power 0.8) |',
    '|---|---|---:|---|---:|',
  ];
  for (const floor of comparison.noise_floor) {
    const show = (number: number | null) =>
      number === null ? '—' : `${number >= 0 ? '+' : '−'}${(Math.abs(number) * 100).toFixed(1)} pp`;
    lines.push(
      `| ${floor.split} | ${floor.metric} | ${floor.n} | ${show(floor.difference)} [${show(floor.low)}, ${show(floor.high)}] | ${floor.mde === null ? '∞' : `${(floor.mde * 100).toFixed(1)} pp`} |`,
    );
  }
  return [...lines, ''];
}

/** Render a comparison as markdown. */
export interface CompareMarkdownOptions {
  /**
   * Splits to show. The terminal shows all three; the PR-comment report.md
   * leaves out `all` (it repeats train and held-out) to stay near 60 lines.
   */
  splits?: readonly ('train' | 'heldout' | 'all')[];
}

export function renderCompareMarkdown(comparison: Comparison, options: CompareMarkdownOptions = {}): string {
  const { pairing } = comparison;
  const lines = [
    `# Compare: \`${comparison.a.label}\` (A) → \`${comparison.b.label}\` (B)`,
    '',
    sideLine('A', comparison.a),
    sideLine('B', comparison.b),
    '',
    `Paired by ${pairing.key.join(', ')}: ${pairing.pairs} pairs; ${pairing.unpaired_a} trials only in A, ${pairing.unpaired_b} only in B; ${pairing.errored} pairs dropped because a trial errored (provider failure).`,
    comparison.aa
      ? '**A/A comparison**: see the noise floor below.'
      : comparison.a.run_id === comparison.b.run_id && comparison.a.run_dir !== comparison.b.run_dir
        ? '**The same run in two folders** (e.g. a copy re-scored with `toolmark report --rescore`): each pair is one trial with the same evidence, so every difference comes from the grading.'
        : '',
    '',
    `Verdicts: better/worse only when the 95% interval excludes 0 and, for pass/fail metrics, McNemar p < 0.05; otherwise "no detectable change".`,
    '',
    `> ${comparison.heldout_check.message}`,
    '',
    ...comparison.warnings.flatMap((warning) => [`> **Warning** — ${warning}.`, '']),
  ];
  for (const split of options.splits ?? (['train', 'heldout', 'all'] as const)) {
    const overall = comparison.sections.find((section) => section.split === split && section.kind === 'all');
    if (overall === undefined) continue;
    lines.push(...splitTable(overall));
    lines.push(
      ...kindTable(comparison.sections.filter((section) => section.split === split && section.kind !== 'all')),
    );
  }
  if (comparison.sections.length === 0) {
    lines.push(
      pairing.split_trials
        ? 'No paired trials: one surface of one run is split into even and odd trials, which needs at least 2 trials per task.'
        : 'No paired trials: the two sides share no (task, trial).',
      '',
    );
  }
  lines.push(...noiseFloorTable(comparison));
  return `${lines
    .filter((line, index, all) => !(line === '' && all[index - 1] === ''))
    .join('\n')
    .trimEnd()}\n`;
}
