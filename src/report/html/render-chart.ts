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
 * Compiles a Vega-Lite spec to Vega and renders it to an SVG string at build
 * time (headless view, no canvas), so the page needs no script or network to
 * show charts. Vega is ESM-only; it is imported lazily so loading this module
 * costs nothing until a chart is drawn.
 */
export async function renderChart(spec: TopLevelSpec): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const compiled = vegaLite.compile(
    { ...spec, config: mergeConfig(CHART_CONFIG, (spec.config ?? {}) as Record<string, unknown>) } as TopLevelSpec,
    { logger: SILENT_LOGGER },
  ).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.None });
  try {
    const svg = await view.toSVG();
    // The XML namespace declarations are identifiers, not loads; leave them.
    return svg.replace('<svg ', '<svg role="img" ');
  } finally {
    view.finalize();
  }
}

/**
 * Draw `specs` and forget them, until `stop()` says the real page is
 * waiting: a chart worker started early (chart-worker.ts) does this while
 * the trials run, so V8 has compiled and optimised Vega's code before the
 * page's charts come (a cold first page took ~1.5–2× as long as a warm one).
 * A spec that fails is skipped: warming up never fails the reports. Vega
 * numbers the clip paths and gradients of its SVGs with counters of its
 * own, so they are reset afterwards: the page's charts are the same bytes
 * as a fresh thread draws.
 */
export async function warmUpCharts(specs: readonly TopLevelSpec[], stop: () => boolean): Promise<void> {
  try {
    for (const spec of specs) {
      if (stop()) return;
      await renderChart(spec).catch(() => {});
    }
  } finally {
    (await import('vega')).resetSVGDefIds();
  }
}
