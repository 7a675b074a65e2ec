import type { TopLevelSpec } from 'vega-lite';
import type { Manifest, Rate, Summary, SummaryGroup } from '../../spec/index.ts';
import { confusionSpec, metricBarsSpec, passCurvesSpec, successVersusTokensSpec } from './charts.ts';

const rate = (value: number): Rate => ({ value, n: 20, ci95: [value * 0.8, Math.min(1, value * 1.1)] });
const none = { count: 0, n: 20 };
const flat = { mean: 1, p50: 1, p95: 1, total: 20, n: 20 };

function group(
  surface: string,
  split: 'train' | 'heldout',
  value: number,
  provider = { provider: 'warm-up', model: 'warm-up' },
  k = 2,
): SummaryGroup {
  return {
    provider: provider.provider,
    model: provider.model,
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
    pass_at_k: Array.from({ length: k }, () => value),
    pass_hat_k: Array.from({ length: k }, (_, index) => value ** (index + 1)),
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
 * The report's kinds of chart (grouped bars, faceted points with whiskers,
 * dashed lines, a heat map with a gradient legend), drawn for a made-up
 * run of two surfaces, so that the page's real charts find Vega's code
 * compiled and optimised (chart-worker.ts). Nobody sees them.
 *
 * The costliest first, the metric bars: on a crowded machine a run's
 * warm-up stops after its first chart (core-room.ts), and the page then
 * spent most of its drawing on the chart it had not met. Warmed up on the
 * bars alone, a worker drew a 10,000-trial run's page in ~160 ms of its
 * CPU; on the heat map alone (the first until round 10: the cheapest, and
 * it too goes through every stage of Vega) ~230–260 ms; on all six of a
 * small run's warm-up ~135 ms. The bars cost ~140 ms more than the heat
 * map to warm up on, on the second core during the trials.
 */
export function warmUpChartSpecs(count = 4): TopLevelSpec[] {
  return madeUpCharts()
    .slice(0, count)
    .map((spec) => spec());
}

/**
 * What a small run's warm-up draws after its three charts of the run's own
 * shape (`runShapedChartSpecs`): the heat map, the kind those leave out,
 * then the metric bars and success against tokens again, of the made-up
 * run (src/run/finalizer.ts).
 */
export function warmUpTailSpecs(): TopLevelSpec[] {
  const [bars, tokens, , heatMap] = madeUpCharts();
  return [heatMap!(), bars!(), tokens!()];
}

/** The made-up run's four charts, the costliest first, each made when called. */
function madeUpCharts(): (() => TopLevelSpec)[] {
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
  return [
    () => metricBarsSpec(summary),
    () => successVersusTokensSpec(summary),
    () => passCurvesSpec(summary),
    () => confusionSpec(cells),
  ];
}

/**
 * The charts of a run's page that have its shape (its providers, surfaces
 * and trials per task: metric bars, success against tokens, pass curves),
 * drawn with made-up numbers: the page's own charts differ from them only in
 * their data, and reuse their compilation to Vega (render-chart.ts,
 * `CompiledCharts`). A run whose summary has other shapes (a surface
 * without tasks, say) compiles those charts anew.
 */
export function runShapedChartSpecs(manifest: Pick<Manifest, 'providers' | 'surfaces' | 'trials'>): TopLevelSpec[] {
  const groups = manifest.providers.flatMap((provider) =>
    manifest.surfaces.map((surface) => group(surface.id, 'train', 0.5, provider, manifest.trials)),
  );
  const summary: Summary = { v: 1, run_id: 'warm-up', synthetic: false, groups, confusion: [] };
  return [metricBarsSpec(summary), successVersusTokensSpec(summary), passCurvesSpec(summary)];
}
