import type { TopLevelSpec } from 'vega-lite';

// The worker's warm-up asks it, from this bundle (chart-worker.ts).
export { crowdedSince } from './core-room.ts';

/** Shared look of every chart, matched to the page's CSS. */
export const CHART_CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif',
  background: '#ffffff',
  padding: 8,
  view: { stroke: null },
  axis: {
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 600,
    titleColor: '#3b4350',
    labelColor: '#4b5563',
    gridColor: '#edf0f4',
    domainColor: '#c5ccd6',
    tickColor: '#c5ccd6',
  },
  legend: { labelFontSize: 11, titleFontSize: 11, titleColor: '#3b4350', labelColor: '#4b5563', orient: 'bottom' },
  header: { labelFontSize: 11, titleFontSize: 11, labelColor: '#1f2937', labelFontWeight: 600 },
  range: {
    category: [
      '#4c78a8',
      '#f58518',
      '#54a24b',
      '#b279a2',
      '#e45756',
      '#72b7b2',
      '#9d755d',
      '#eeca3b',
      '#ff9da6',
      '#bab0ac',
    ],
  },
} as const;

/** Vega-Lite's compile warnings would land on the CLI's stdout; a report has no use for them. */
const SILENT_LOGGER = {
  level(value?: number) {
    return value === undefined ? 0 : SILENT_LOGGER;
  },
  error() {
    return SILENT_LOGGER;
  },
  warn() {
    return SILENT_LOGGER;
  },
  info() {
    return SILENT_LOGGER;
  },
  debug() {
    return SILENT_LOGGER;
  },
} as never;

/** One level deep: a chart's `legend: {orient}` adjusts the shared legend style instead of replacing it. */
function mergeConfig(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key];
    const bothObjects = [current, value].every(
      (item) => item !== null && typeof item === 'object' && !Array.isArray(item),
    );
    merged[key] = bothObjects ? { ...(current as object), ...(value as object) } : value;
  }
  return merged;
}

/**
 * Vega-Lite's compilations of the charts drawn in a thread, by their spec
 * without its data (`compiledFor`). On a 10,000-trial run's page, compiling
 * to Vega was ~25–35 % of the drawing the reports waited for (warm code:
 * ~45–105 ms of ~150–300 ms on a busy host); its chart worker warms up on
 * the run's own chart shapes (warm-up-specs.ts, `runShapedChartSpecs`), so
 * the page's charts, made of the same shapes with other numbers, skip it.
 */
export type CompiledCharts = Map<string, { vega: object; values: number }>;

/** An empty `CompiledCharts`, for a thread that draws charts alike. */
export function compiledCharts(): CompiledCharts {
  return new Map();
}

type VegaSpec = { data?: { values?: unknown }[] };

/**
 * `spec` compiled to Vega. Vega-Lite never reads inline data: it passes the
 * spec's `data.values` array itself into one of the Vega data sets, so a
 * compilation is kept (a copy, with which data set it was) only when that is
 * found, and reused for a spec alike but for those values, with them put there.
 */
function compiledFor(
  spec: TopLevelSpec,
  compile: (spec: TopLevelSpec) => object,
  charts: CompiledCharts | undefined,
): object {
  const values = (spec as { data?: { values?: unknown } }).data?.values;
  if (!charts || !Array.isArray(values)) return compile(spec);
  const key = JSON.stringify({ ...spec, data: { ...spec.data, values: null } });
  const kept = charts.get(key);
  if (kept) {
    const vega = structuredClone(kept.vega) as VegaSpec;
    vega.data![kept.values]!.values = values;
    return vega;
  }
  const vega = compile(spec) as VegaSpec;
  const index = vega.data?.findIndex((data) => data.values === values) ?? -1;
  if (index >= 0) charts.set(key, { vega: structuredClone(vega), values: index });
  return vega;
}

/**
 * Compiles a Vega-Lite spec to Vega and renders it to an SVG string at build
 * time (headless view, no canvas), so the page needs no script or network to
 * show charts. Vega is ESM-only; it is imported lazily so loading this module
 * costs nothing until a chart is drawn. `charts`: compilations to reuse and keep.
 */
export async function renderChart(spec: TopLevelSpec, charts?: CompiledCharts): Promise<string> {
  return (await drawChart(spec, charts))!;
}

/**
 * `renderChart`, which with `proceed` asks it between its stages (compiled
 * to Vega, parsed into a view, drawn) and gives up when it says no: null.
 */
async function drawChart(
  spec: TopLevelSpec,
  charts?: CompiledCharts,
  proceed?: () => Promise<boolean>,
): Promise<string | null> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const compile = (chart: TopLevelSpec) =>
    vegaLite.compile(
      { ...chart, config: mergeConfig(CHART_CONFIG, (chart.config ?? {}) as Record<string, unknown>) } as TopLevelSpec,
      { logger: SILENT_LOGGER },
    ).spec;
  const compiled = compiledFor(spec, compile, charts);
  if (proceed && !(await proceed())) return null;
  const view = new vega.View(vega.parse(compiled as never), { renderer: 'none', logLevel: vega.None });
  try {
    if (proceed && !(await proceed())) return null;
    const svg = await view.toSVG();
    // The XML namespace declarations are identifiers, not loads; leave them.
    return svg.replace('<svg ', '<svg role="img" ');
  } finally {
    view.finalize();
  }
}

/** The next turn of the event loop: the messages that came meanwhile are handled first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Draw `specs` and forget them, until `stop(drawn)` says the real page is
 * waiting (`drawn`: the warm-up's charts drawn so far): a chart worker
 * started early (chart-worker.ts) does this while the trials run, so V8 has
 * compiled and optimised Vega's code before the page's charts come (a cold
 * first page took ~1.5–2× as long as a warm one). A spec that fails is
 * skipped: warming up never fails the reports. Vega numbers the clip paths
 * and gradients of its SVGs with counters of its own, so they are reset
 * afterwards: the page's charts are the same bytes as a fresh thread draws.
 *
 * `stop` is asked before each chart and between its three stages, each
 * time after a turn of the event loop. Drawing is promises only: without
 * those turns the worker's message handler (the page's specs) ran only once
 * the whole warm-up had ended (~0.8–1.0 s of charts, on a 10,000-trial run
 * still under way as its summary was made), and the page then waited for
 * the rest of it; now it waits at most for one stage of one chart.
 * `charts`: where their compilations are kept, for the page's charts alike.
 */
export async function warmUpCharts(
  specs: readonly TopLevelSpec[],
  stop: (drawn: number) => boolean,
  charts?: CompiledCharts,
): Promise<void> {
  let drawn = 0;
  const proceed = async () => {
    await nextTurn();
    return !stop(drawn);
  };
  try {
    for (const spec of specs) {
      if (!(await proceed())) return;
      const svg = await drawChart(spec, charts, proceed).catch(() => '');
      if (svg === null) return;
      drawn += 1;
    }
  } finally {
    (await import('vega')).resetSVGDefIds();
  }
}
