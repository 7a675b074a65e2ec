import type { TopLevelSpec } from 'vega-lite';
import type { Summary, SummaryGroup } from '../../spec/index.ts';
import { headlineGroups } from '../headline.ts';
import { successRate, type TaskOutcome } from '../task-outcomes.ts';

/**
 * Vega-Lite specs for the HTML report. Each function takes summary data (or
 * reduced task outcomes) and returns a spec; render-chart.ts turns it into
 * SVG. No chart reads raw trials.
 */

/** Label of a series: the surface, prefixed by provider/model when a run has several. */
export function seriesLabel(group: Pick<SummaryGroup, 'provider' | 'model' | 'surface'>, several: boolean): string {
  return several ? `${group.model} · ${group.surface}` : group.surface;
}

/** Panel label of a provider/model (charts are faceted by it, never pooled). */
const panelLabel = (group: Pick<SummaryGroup, 'provider' | 'model'>) => `${group.provider}:${group.model}`;

const PERCENT_AXIS = { format: '.0%', tickCount: 5 } as const;

/** Twenty distinguishable colours (Tableau 20 order), assigned to surfaces in sorted order. */
const PALETTE = [
  '#4c78a8',
  '#f58518',
  '#54a24b',
  '#e45756',
  '#72b7b2',
  '#b279a2',
  '#eeca3b',
  '#9d755d',
  '#ff9da6',
  '#bab0ac',
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

/**
 * One colour per surface, the same in every chart of the report (the scale
 * lists every surface of the run, so a panel missing one does not shift
 * the others' colours).
 */
export function surfaceColourScale(summary: Summary): { domain: string[]; range: string[] } {
  const domain = [...new Set(summary.groups.map((group) => group.surface))].sort();
  return { domain, range: domain.map((_, index) => PALETTE[index % PALETTE.length]!) };
}

/** A legend that is never cut: full labels, every entry, in columns below the chart. */
const FULL_LEGEND = {
  labelLimit: 1000,
  symbolLimit: 1000,
  orient: 'bottom',
  direction: 'horizontal',
  columns: 4,
  columnPadding: 14,
} as const;

function providerCount(summary: Summary): number {
  return new Set(summary.groups.map(panelLabel)).size;
}

/** Task success (with its interval) against schema tokens: a point per surface × split, a panel per provider. */
export function successVersusTokensSpec(summary: Summary): TopLevelSpec {
  const values = headlineGroups(summary)
    .filter((group) => group.task_success.value !== null)
    .map((group) => ({
      provider: panelLabel(group),
      surface: group.surface,
      split: group.split,
      tokens: group.schema_tokens,
      value: group.task_success.value,
      low: group.task_success.ci95?.[0] ?? group.task_success.value,
      high: group.task_success.ci95?.[1] ?? group.task_success.value,
    }));
  const x = {
    field: 'tokens',
    type: 'quantitative',
    title: 'schema tokens (tools payload)',
    scale: { zero: false, padding: 16 },
  };
  const color = {
    field: 'surface',
    type: 'nominal',
    title: 'surface',
    scale: surfaceColourScale(summary),
    legend: { ...FULL_LEGEND, symbolOpacity: 1 },
  };
  return {
    data: { values },
    facet: { column: { field: 'provider', type: 'nominal', title: null } },
    columns: Math.min(3, providerCount(summary)),
    spec: {
      width: 240,
      height: 200,
      encoding: { x, color },
      layer: [
        {
          mark: { type: 'rule', strokeWidth: 2, opacity: 0.6 },
          encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
        },
        {
          mark: { type: 'point', filled: true, size: 80, opacity: 1 },
          encoding: {
            y: {
              field: 'value',
              type: 'quantitative',
              title: 'task success',
              scale: { domain: [0, 1] },
              axis: PERCENT_AXIS,
            },
            shape: {
              field: 'split',
              type: 'nominal',
              title: 'split',
              scale: { domain: ['train', 'heldout'], range: ['circle', 'diamond'] },
              legend: { orient: 'bottom' },
            },
            tooltip: [
              { field: 'provider' },
              { field: 'surface' },
              { field: 'split' },
              { field: 'value', format: '.1%' },
              { field: 'tokens', format: ',.0f' },
            ],
          },
        },
      ],
    },
  } as TopLevelSpec;
}

const BAR_METRICS = [
  ['selection_accuracy', 'selection'],
  ['argument_validity', 'args valid'],
  ['argument_correctness', 'args correct'],
  ['task_success', 'task success'],
  ['recovery_rate', 'recovery'],
] as const;

/**
 * A panel per metric (rows) × provider (columns): a bar per surface in its
 * stable colour, train solid and held-out pale beside it, Wilson whiskers.
 */
export function metricBarsSpec(summary: Summary): TopLevelSpec {
  const values = headlineGroups(summary).flatMap((group) =>
    BAR_METRICS.filter(([metric]) => group[metric].value !== null).map(([metric, label]) => ({
      metric: label,
      provider: panelLabel(group),
      surface: group.surface,
      split: group.split,
      value: group[metric].value,
      low: group[metric].ci95?.[0] ?? group[metric].value,
      high: group[metric].ci95?.[1] ?? group[metric].value,
    })),
  );
  return {
    data: { values },
    facet: {
      column: { field: 'provider', type: 'nominal', title: null },
      row: {
        field: 'metric',
        type: 'nominal',
        title: null,
        sort: BAR_METRICS.map(([, label]) => label),
        header: { labelAngle: 0, labelAlign: 'left', labelLimit: 120 },
      },
    },
    spacing: { column: 16, row: 18 },
    spec: {
      width: { step: 11 },
      height: 90,
      encoding: {
        x: { field: 'surface', type: 'nominal', title: null, axis: null },
        xOffset: { field: 'split', type: 'nominal', sort: ['train', 'heldout'] },
      },
      layer: [
        {
          mark: { type: 'bar', cornerRadiusTopLeft: 1, cornerRadiusTopRight: 1 },
          encoding: {
            y: {
              field: 'value',
              type: 'quantitative',
              title: null,
              scale: { domain: [0, 1] },
              axis: { format: '.0%', tickCount: 3 },
            },
            color: {
              field: 'surface',
              type: 'nominal',
              title: 'surface',
              scale: surfaceColourScale(summary),
              legend: FULL_LEGEND,
            },
            opacity: {
              field: 'split',
              type: 'nominal',
              title: 'split',
              scale: { domain: ['train', 'heldout'], range: [1, 0.45] },
              legend: { orient: 'bottom' },
            },
            tooltip: [
              { field: 'provider' },
              { field: 'surface' },
              { field: 'split' },
              { field: 'metric' },
              { field: 'value', format: '.1%' },
            ],
          },
        },
        {
          mark: { type: 'rule', color: '#1f2937', strokeWidth: 1 },
          encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
        },
      ],
    },
  } as TopLevelSpec;
}

/** Per-action confusion matrix as a heat map: expected (rows) × chosen (columns), shaded by row share. */
export function confusionSpec(cells: { expected: string; chosen: string; count: number }[]): TopLevelSpec {
  const rowTotals = new Map<string, number>();
  for (const cell of cells) rowTotals.set(cell.expected, (rowTotals.get(cell.expected) ?? 0) + cell.count);
  const values = cells.map((cell) => ({
    ...cell,
    share: cell.count / Math.max(1, rowTotals.get(cell.expected) ?? 0),
    correct: cell.expected === cell.chosen,
  }));
  const axisLabels = [...new Set([...cells.map((cell) => cell.expected), ...cells.map((cell) => cell.chosen)])].sort();
  return {
    data: { values },
    width: { step: 44 },
    height: { step: 30 },
    encoding: {
      x: {
        field: 'chosen',
        type: 'nominal',
        title: 'chosen',
        sort: axisLabels,
        axis: { labelAngle: -40, labelLimit: 320, orient: 'top' },
      },
      y: { field: 'expected', type: 'nominal', title: 'expected', sort: axisLabels, axis: { labelLimit: 320 } },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1.5 },
        encoding: {
          color: {
            field: 'share',
            type: 'quantitative',
            title: 'share of row',
            scale: { scheme: 'blues', domain: [0, 1] },
            legend: { format: '.0%', orient: 'right', gradientLength: 120 },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 11 },
        encoding: {
          text: { field: 'count', type: 'quantitative' },
          color: { condition: { test: 'datum.share > 0.55', value: '#ffffff' }, value: '#1f2937' },
        },
      },
    ],
  } as TopLevelSpec;
}

/** pass^k (solid) and pass@k (dashed) over k: a line per surface in its stable colour, a panel per provider (columns) × split (rows). */
export function passCurvesSpec(summary: Summary): TopLevelSpec {
  const values = headlineGroups(summary).flatMap((group) => [
    ...group.pass_hat_k.map((value, index) => ({
      provider: panelLabel(group),
      surface: group.surface,
      split: group.split,
      k: index + 1,
      value,
      estimator: 'pass^k (all k pass)',
    })),
    ...group.pass_at_k.map((value, index) => ({
      provider: panelLabel(group),
      surface: group.surface,
      split: group.split,
      k: index + 1,
      value,
      estimator: 'pass@k (any of k passes)',
    })),
  ]);
  const maxK = Math.max(1, ...values.map((value) => value.k));
  return {
    data: { values },
    facet: {
      column: { field: 'provider', type: 'nominal', title: null },
      row: {
        field: 'split',
        type: 'nominal',
        title: null,
        sort: ['train', 'heldout'],
        header: { labelAngle: 0, labelAlign: 'left' },
      },
    },
    spacing: { column: 16, row: 18 },
    spec: {
      width: 220,
      height: 130,
      mark: { type: 'line', point: { filled: true, size: 28 }, strokeWidth: 1.8 },
      encoding: {
        x: {
          field: 'k',
          type: 'quantitative',
          title: 'k (trials that must pass)',
          scale: { domain: [1, maxK], nice: false },
          axis: { tickMinStep: 1, format: 'd' },
        },
        y: {
          field: 'value',
          type: 'quantitative',
          title: null,
          scale: { domain: [0, 1] },
          axis: { format: '.0%', tickCount: 3 },
        },
        color: {
          field: 'surface',
          type: 'nominal',
          title: 'surface',
          scale: surfaceColourScale(summary),
          legend: FULL_LEGEND,
        },
        strokeDash: {
          field: 'estimator',
          type: 'nominal',
          title: null,
          scale: {
            domain: ['pass^k (all k pass)', 'pass@k (any of k passes)'],
            range: [
              [1, 0],
              [5, 4],
            ],
          },
          // Explained in the card's note: vega's stroke legend draws no dash sample.
          legend: null,
        },
        detail: { field: 'estimator' },
      },
    },
  } as TopLevelSpec;
}

/** Most tasks shown in the flipped-task heat map (the table lists them all). */
export const FLIPPED_CHART_TASKS = 40;

/** Success rate per task (rows) × surface (columns), for tasks whose trials disagree somewhere. */
export function flippedSpec(outcomes: readonly TaskOutcome[], flippedTasks: readonly string[]): TopLevelSpec {
  const several = new Set(outcomes.map((outcome) => `${outcome.provider}/${outcome.model}`)).size > 1;
  const shown = new Set(flippedTasks.slice(0, FLIPPED_CHART_TASKS));
  const values = outcomes
    .filter((outcome) => shown.has(`${outcome.domain}/${outcome.task}`) && outcome.completed > 0)
    .map((outcome) => ({
      task: outcome.task,
      series: seriesLabel(outcome, several),
      rate: successRate(outcome),
      label: `${outcome.successes}/${outcome.completed}`,
      flipped: outcome.successes > 0 && outcome.successes < outcome.completed,
    }));
  return {
    data: { values },
    width: { step: 90 },
    height: { step: 20 },
    encoding: {
      x: { field: 'series', type: 'nominal', title: null, axis: { orient: 'top', labelAngle: 0, labelLimit: 120 } },
      y: { field: 'task', type: 'nominal', title: null, axis: { labelLimit: 240 } },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1.5 },
        encoding: {
          color: {
            field: 'rate',
            type: 'quantitative',
            title: 'task success',
            scale: { scheme: 'redyellowgreen', domain: [0, 1] },
            legend: { format: '.0%', orient: 'right', gradientLength: 120 },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 10.5 },
        encoding: {
          text: { field: 'label' },
          fontWeight: { condition: { test: 'datum.flipped', value: 700 }, value: 400 },
          color: { condition: { test: 'datum.rate > 0.85 || datum.rate < 0.15', value: '#ffffff' }, value: '#1f2937' },
        },
      },
    ],
  } as TopLevelSpec;
}
