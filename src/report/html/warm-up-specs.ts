import type { TopLevelSpec } from 'vega-lite';
import type { Rate, Summary, SummaryGroup } from '../../spec/index.ts';
import { confusionSpec, metricBarsSpec, passCurvesSpec, successVersusTokensSpec } from './charts.ts';

const rate = (value: number): Rate => ({ value, n: 20, ci95: [value * 0.8, Math.min(1, value * 1.1)] });
const none = { count: 0, n: 20 };
const flat = { mean: 1, p50: 1, p95: 1, total: 20, n: 20 };

function group(surface: string, split: 'train' | 'heldout', value: number): SummaryGroup {
  return {
    provider: 'warm-up',
    model: 'warm-up',
    surface,
    split,
    kind: 'all',
    selection_accuracy: rate(value),
    argument_validity: rate(value),
    argument_correctness: rate(value),
    task_success: rate(value),
    unsafe_proposals: none,
    unsafe_side_effects: none,
    recovery_rate: rate(value),
    unnecessary_calls: none,
    pass_at_k: [value, value],
    pass_hat_k: [value, value * value],
    flip_rate: rate(0.1),
    schema_tokens: Math.round(100 + 100 * value),
    schema_bytes: 400,
    input_tokens: flat,
    output_tokens: flat,
    latency_ms: flat,
    cost_usd: null,
    abstentions: {},
    errored: 0,
    trials: 20,
  };
}

/**
 * The report's kinds of chart (a heat map with a gradient legend, faceted
 * points with whiskers, grouped bars, dashed lines), drawn for a made-up
 * run of two surfaces, so that the page's real charts find Vega's code
 * compiled and optimised (chart-worker.ts). Nobody sees them. The first
 * is the cheapest and already goes through every stage of Vega (compile,
 * parse, dataflow, scenegraph, SVG).
 */
export function warmUpChartSpecs(count = 4): TopLevelSpec[] {
  const summary: Summary = {
    v: 1,
    run_id: 'warm-up',
    synthetic: false,
    groups: [
      group('a', 'train', 0.8),
      group('a', 'heldout', 0.7),
      group('b', 'train', 0.5),
      group('b', 'heldout', 0.4),
    ],
    confusion: [],
  };
  const cells = [
    { expected: 'x', chosen: 'x', count: 8 },
    { expected: 'x', chosen: 'y', count: 2 },
    { expected: 'y', chosen: 'y', count: 9 },
  ];
  const specs = [
    () => confusionSpec(cells),
    () => successVersusTokensSpec(summary),
    () => metricBarsSpec(summary),
    () => passCurvesSpec(summary),
  ];
  return specs.slice(0, count).map((spec) => spec());
}
