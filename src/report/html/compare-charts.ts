import type { TopLevelSpec } from 'vega-lite';
import type { CompareReview } from '../../spec/index.ts';

/** Colours of the verdicts, the same in every compare chart and badge. */
export const VERDICT_COLOURS = {
  better: '#1a7f37',
  worse: '#b42318',
  'no detectable change': '#6b7280',
  'no data': '#c5ccd6',
} as const;

/**
 * Forest plot of the paired differences: task success and selection, all
 * providers and each provider, with bootstrap 95% intervals; one panel per
 * split, a zero line, points coloured by verdict.
 */
export function differencesSpec(review: CompareReview): TopLevelSpec {
  const sources = [
    { label: review.byProvider.length ? 'all providers' : 'all', comparison: review.comparison },
    ...review.byProvider.map((entry) => ({ label: entry.provider, comparison: entry.comparison })),
  ];
  // Provider names share a prefix (`replay:synthetic-…`); the row label keeps what tells them apart.
  const shortLabel = (label: string) => label.replace(/^[^:]+:/, '');
  const values = sources.flatMap((source, order) =>
    source.comparison.sections
      .filter((section) => section.kind === 'all' && section.split !== 'all')
      .flatMap((section) =>
        section.metrics
          .filter(
            (metric) =>
              (metric.metric === 'task_success' || metric.metric === 'selection_accuracy') &&
              metric.difference !== null,
          )
          .map((metric) => ({
            row: `${shortLabel(source.label)} · ${metric.metric === 'task_success' ? 'task success' : 'selection'}`,
            order: order * 2 + (metric.metric === 'task_success' ? 0 : 1),
            split: section.split === 'heldout' ? 'held-out' : 'train',
            difference: metric.difference,
            low: metric.low,
            high: metric.high,
            verdict: metric.verdict,
          })),
      ),
  );
  const rows = [...new Map(values.map((value) => [value.row, value.order])).entries()]
    .sort((a, b) => a[1] - b[1])
    .map(([row]) => row);
  return {
    data: { values },
    // Splits stacked, not side by side, so the chart fits a phone's width.
    facet: {
      row: {
        field: 'split',
        type: 'nominal',
        title: null,
        sort: ['train', 'held-out'],
        header: { labelAngle: 0, labelAlign: 'left', labelOrient: 'top', labelPadding: 4 },
      },
    },
    spacing: { row: 12 },
    spec: {
      width: 200,
      height: { step: 20 },
      layer: [
        { mark: { type: 'rule', color: '#9aa3af', strokeDash: [4, 3] }, encoding: { x: { datum: 0 } } },
        {
          mark: { type: 'rule', strokeWidth: 2 },
          encoding: {
            x: { field: 'low', type: 'quantitative' },
            x2: { field: 'high' },
            y: { field: 'row', type: 'nominal', sort: rows, title: null, axis: { labelLimit: 320 } },
            color: {
              field: 'verdict',
              type: 'nominal',
              legend: null,
              scale: { domain: Object.keys(VERDICT_COLOURS), range: Object.values(VERDICT_COLOURS) },
            },
          },
        },
        {
          mark: { type: 'point', filled: true, size: 70, opacity: 1 },
          encoding: {
            x: {
              field: 'difference',
              type: 'quantitative',
              title: 'B − A (percentage points)',
              axis: { format: '+.0%', tickCount: 5 },
            },
            y: { field: 'row', type: 'nominal', sort: rows, title: null, axis: { labelLimit: 320 } },
            color: {
              field: 'verdict',
              type: 'nominal',
              title: 'verdict',
              scale: { domain: Object.keys(VERDICT_COLOURS), range: Object.values(VERDICT_COLOURS) },
              legend: { orient: 'bottom', direction: 'horizontal' },
            },
            tooltip: [
              { field: 'row' },
              { field: 'split' },
              { field: 'difference', format: '+.1%' },
              { field: 'low', format: '+.1%' },
              { field: 'high', format: '+.1%' },
              { field: 'verdict' },
            ],
          },
        },
      ],
    },
  } as TopLevelSpec;
}

/** Schema tokens per tool, A against B, for the tools of the surface diffs. */
export function toolTokensSpec(review: CompareReview): TopLevelSpec | null {
  const order = review.surfaceDiffs.flatMap((diff) =>
    [...diff.tools]
      .sort((a, b) => (a.position.b ?? 99) - (b.position.b ?? 99))
      .map((tool) => `${tool.name.b ?? tool.name.a}`),
  );
  const values = review.surfaceDiffs.flatMap((diff) =>
    diff.tools.flatMap((tool) => [
      ...(tool.cost.a
        ? [{ tool: `${tool.name.b ?? tool.name.a}`, side: `A ${diff.a?.id ?? ''}`, tokens: tool.cost.a.tokens }]
        : []),
      ...(tool.cost.b
        ? [{ tool: `${tool.name.b ?? tool.name.a}`, side: `B ${diff.b?.id ?? ''}`, tokens: tool.cost.b.tokens }]
        : []),
    ]),
  );
  if (values.length === 0) return null;
  return {
    data: { values },
    width: 220,
    height: { step: 12 },
    encoding: {
      y: { field: 'tool', type: 'nominal', title: null, sort: order, axis: { labelLimit: 320 } },
      yOffset: { field: 'side', type: 'nominal' },
      x: { field: 'tokens', type: 'quantitative', title: 'o200k tokens of the tool definition' },
      color: {
        field: 'side',
        type: 'nominal',
        title: null,
        scale: { range: ['#9aa3af', '#4c78a8'] },
        legend: { orient: 'bottom', labelLimit: 400 },
      },
    },
    mark: { type: 'bar', cornerRadiusEnd: 2 },
  } as TopLevelSpec;
}
