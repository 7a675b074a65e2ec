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

function hasSeveralModels(summary: Summary): boolean {
  return new Set(summary.groups.map((group) => `${group.provider}/${group.model}`)).size > 1;
}

const PERCENT_AXIS = { format: '.0%', tickCount: 5 } as const;

/** Task success (with its interval) against schema tokens, one point per surface × split. */
export function successVersusTokensSpec(summary: Summary): TopLevelSpec {
  const several = hasSeveralModels(summary);
  const values = headlineGroups(summary)
    .filter((group) => group.task_success.value !== null)
    .map((group) => ({
      series: seriesLabel(group, several), split: group.split, tokens: group.schema_tokens,
      value: group.task_success.value, low: group.task_success.ci95?.[0] ?? group.task_success.value,
      high: group.task_success.ci95?.[1] ?? group.task_success.value,
    }));
  const x = { field: 'tokens', type: 'quantitative', title: 'schema tokens (tools payload)', scale: { zero: false, padding: 40 } };
  return {
    width: 400, height: 260,
    // Legends on the right keep the chart at its size in a half-width card.
    config: { legend: { orient: 'right' } },
    data: { values },
    encoding: { x, color: { field: 'series', type: 'nominal', title: 'surface', legend: { symbolOpacity: 1, labelLimit: 240 } } },
    layer: [
      { mark: { type: 'rule', strokeWidth: 2, opacity: 0.6 }, encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
      {
        mark: { type: 'point', filled: true, size: 110, opacity: 1 },
        encoding: {
          y: { field: 'value', type: 'quantitative', title: 'task success', scale: { domain: [0, 1] }, axis: PERCENT_AXIS },
          shape: { field: 'split', type: 'nominal', title: 'split', scale: { domain: ['train', 'heldout'], range: ['circle', 'diamond'] } },
        },
      },
    ],
  } as TopLevelSpec;
}

const BAR_METRICS = [
  ['selection_accuracy', 'selection'],
  ['argument_validity', 'args valid'],
  ['argument_correctness', 'args correct'],
  ['task_success', 'task success'],
  ['recovery_rate', 'recovery'],
] as const;

/** Panels per row for a given number of bar groups (surface × model) per panel. */
function panelColumns(series: number): number {
  if (series > 8) return 2;
  return series > 3 ? 3 : 5;
}

/** One small panel per metric: bars per surface (split side by side) with Wilson whiskers. */
export function metricBarsSpec(summary: Summary): TopLevelSpec {
  const several = hasSeveralModels(summary);
  const values = headlineGroups(summary).flatMap((group) =>
    BAR_METRICS.filter(([metric]) => group[metric].value !== null).map(([metric, label], order) => ({
      metric: label, order, series: seriesLabel(group, several), split: group.split,
      value: group[metric].value, low: group[metric].ci95?.[0] ?? group[metric].value, high: group[metric].ci95?.[1] ?? group[metric].value,
    })));
  return {
    data: { values },
    // Wrapped panels: the more bars a panel has, the fewer panels per row, so
    // the page never has to shrink the chart below a readable size.
    facet: { field: 'metric', type: 'nominal', title: null, sort: BAR_METRICS.map(([, label]) => label) },
    columns: panelColumns(new Set(values.map((value) => value.series)).size),
    spacing: { column: 18, row: 24 },
    spec: {
      width: { step: 26 }, height: 200,
      encoding: {
        x: { field: 'series', type: 'nominal', title: null, axis: { labelAngle: -35, labelLimit: 320 } },
        xOffset: { field: 'split', type: 'nominal', sort: ['train', 'heldout'] },
      },
      layer: [
        {
          mark: { type: 'bar', cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 },
          encoding: {
            y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [0, 1] }, axis: PERCENT_AXIS },
            color: { field: 'split', type: 'nominal', title: 'split', sort: ['train', 'heldout'], scale: { range: ['#4c78a8', '#f58518'] } },
            tooltip: [{ field: 'series' }, { field: 'split' }, { field: 'value', format: '.1%' }],
          },
        },
        { mark: { type: 'rule', color: '#1f2937', strokeWidth: 1.2 }, encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
      ],
    },
  } as TopLevelSpec;
}

/** Per-action confusion matrix as a heat map: expected (rows) × chosen (columns), shaded by row share. */
export function confusionSpec(cells: { expected: string; chosen: string; count: number }[]): TopLevelSpec {
  const rowTotals = new Map<string, number>();
  for (const cell of cells) rowTotals.set(cell.expected, (rowTotals.get(cell.expected) ?? 0) + cell.count);
  const values = cells.map((cell) => ({ ...cell, share: cell.count / Math.max(1, rowTotals.get(cell.expected) ?? 0), correct: cell.expected === cell.chosen }));
  const axisLabels = [...new Set([...cells.map((cell) => cell.expected), ...cells.map((cell) => cell.chosen)])].sort();
  return {
    data: { values },
    width: { step: 44 }, height: { step: 30 },
    encoding: {
      x: { field: 'chosen', type: 'nominal', title: 'chosen', sort: axisLabels, axis: { labelAngle: -40, labelLimit: 320, orient: 'top' } },
      y: { field: 'expected', type: 'nominal', title: 'expected', sort: axisLabels, axis: { labelLimit: 320 } },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1.5 },
        encoding: { color: { field: 'share', type: 'quantitative', title: 'share of row', scale: { scheme: 'blues', domain: [0, 1] }, legend: { format: '.0%', orient: 'right', gradientLength: 120 } } },
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

/** pass^k (solid) and pass@k (dashed) over k, a line per surface, a panel per split. */
export function passCurvesSpec(summary: Summary): TopLevelSpec {
  const several = hasSeveralModels(summary);
  const values = headlineGroups(summary).flatMap((group) => [
    ...group.pass_hat_k.map((value, index) => ({ series: seriesLabel(group, several), split: group.split, k: index + 1, value, estimator: 'pass^k (all k pass)' })),
    ...group.pass_at_k.map((value, index) => ({ series: seriesLabel(group, several), split: group.split, k: index + 1, value, estimator: 'pass@k (any of k passes)' })),
  ]);
  const maxK = Math.max(1, ...values.map((value) => value.k));
  return {
    data: { values },
    facet: { column: { field: 'split', type: 'nominal', title: null, sort: ['train', 'heldout'] } },
    config: { legend: { orient: 'right' } },
    spec: {
      width: 210, height: 220,
      mark: { type: 'line', point: { filled: true, size: 40 }, strokeWidth: 2 },
      encoding: {
        x: { field: 'k', type: 'quantitative', title: 'k (trials that must pass)', scale: { domain: [1, maxK], nice: false }, axis: { tickMinStep: 1, format: 'd' } },
        y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [0, 1] }, axis: PERCENT_AXIS },
        color: { field: 'series', type: 'nominal', title: 'surface' },
        strokeDash: {
          field: 'estimator', type: 'nominal', title: null,
          scale: { domain: ['pass^k (all k pass)', 'pass@k (any of k passes)'], range: [[1, 0], [5, 4]] },
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
      task: outcome.task, series: seriesLabel(outcome, several), rate: successRate(outcome),
      label: `${outcome.successes}/${outcome.completed}`, flipped: outcome.successes > 0 && outcome.successes < outcome.completed,
    }));
  return {
    data: { values },
    width: { step: 90 }, height: { step: 20 },
    encoding: {
      x: { field: 'series', type: 'nominal', title: null, axis: { orient: 'top', labelAngle: 0, labelLimit: 120 } },
      y: { field: 'task', type: 'nominal', title: null, axis: { labelLimit: 240 } },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1.5 },
        encoding: { color: { field: 'rate', type: 'quantitative', title: 'task success', scale: { scheme: 'redyellowgreen', domain: [0, 1] }, legend: { format: '.0%', orient: 'right', gradientLength: 120 } } },
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
