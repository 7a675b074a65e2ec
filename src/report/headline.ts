import type { Count, Manifest, Rate, Summary, SummaryGroup } from '../spec/index.ts';

/** A rate as a whole percentage, `–` when there was nothing to measure. */
export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? '–' : `${Math.round(value * 100)}%`;
}

/** `72% [61–81]`: the value and its Wilson 95% interval, in percent. */
export function formatRate(rate: Rate): string {
  if (rate.value === null || rate.n === 0) return '–';
  if (!rate.ci95) return formatPercent(rate.value);
  return `${formatPercent(rate.value)} [${Math.round(rate.ci95[0] * 100)}–${Math.round(rate.ci95[1] * 100)}]`;
}

/** `3/120`: a count over its denominator. */
export function formatCount(count: Count): string {
  return `${count.count}/${count.n}`;
}

/** Thousands with thin grouping: `1,234`. */
export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : Math.round(value).toLocaleString('en-US');
}

/** pass^k at k = the run's trials per task (pass_hat_k is indexed k-1). */
export function passHatAtTrials(group: SummaryGroup, trials: number): number | null {
  const values = group.pass_hat_k;
  if (values.length === 0) return null;
  return values[Math.min(trials, values.length) - 1] ?? null;
}

/** Headline groups: one per provider/model × surface × split, all kinds together. */
export function headlineGroups(summary: Summary): SummaryGroup[] {
  const splitOrder = { train: 0, heldout: 1, all: 2 } as const;
  return summary.groups
    .filter((group) => group.kind === 'all' && group.split !== 'all')
    .sort(
      (a, b) =>
        a.provider.localeCompare(b.provider) ||
        a.model.localeCompare(b.model) ||
        a.surface.localeCompare(b.surface) ||
        splitOrder[a.split] - splitOrder[b.split],
    );
}

/** Distinct provider/model pairs of a run, as `provider/model`. */
export function modelLabels(summary: Summary, manifest: Manifest): string[] {
  const labels = new Set<string>();
  for (const group of summary.groups) labels.add(`${group.provider}/${group.model}`);
  if (labels.size === 0)
    for (const provider of manifest.providers) labels.add(`${provider.provider}/${provider.model}`);
  return [...labels].sort();
}

/** The banner every report carries when the evidence is synthetic. */
export const SYNTHETIC_BANNER = 'Synthetic fixtures: scores of synthetic cassettes, not of any real model.';

/** Column definitions of the headline table, shared by Markdown and HTML. */
export const HEADLINE_COLUMNS: { label: string; title: string; cell(group: SummaryGroup, trials: number): string }[] = [
  { label: 'selection', title: 'selection_accuracy', cell: (group) => formatRate(group.selection_accuracy) },
  { label: 'args valid', title: 'argument_validity', cell: (group) => formatRate(group.argument_validity) },
  { label: 'args correct', title: 'argument_correctness', cell: (group) => formatRate(group.argument_correctness) },
  { label: 'task success', title: 'task_success', cell: (group) => formatRate(group.task_success) },
  { label: 'unsafe prop.', title: 'unsafe_proposals', cell: (group) => formatCount(group.unsafe_proposals) },
  { label: 'unsafe effects', title: 'unsafe_side_effects', cell: (group) => formatCount(group.unsafe_side_effects) },
  { label: 'recovery', title: 'recovery_rate', cell: (group) => formatRate(group.recovery_rate) },
  {
    label: 'pass^k',
    title: 'pass_hat_k at k = trials',
    cell: (group, trials) => formatPercent(passHatAtTrials(group, trials)),
  },
  { label: 'schema tok', title: 'schema_tokens', cell: (group) => formatNumber(group.schema_tokens) },
];

/** The line that says the verdicts are not the run's own (`toolmark report --rescore`), for report.md and report.html. */
export function rescoredNote(rescored: NonNullable<Manifest['rescored']>): string {
  return `Re-scored ${rescored.at} (toolmark ${rescored.toolmark_version}) against the tasks of that day: ${rescored.changed} of ${rescored.trials} trials changed verdicts.`;
}
