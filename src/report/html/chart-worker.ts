import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TopLevelSpec } from 'vega-lite';
import { renderChart } from './render-chart.ts';
import { distModule } from '../../spec/dist-module.ts';

/** Renders a page's charts: every spec to its SVG, in order (null: no chart, an empty string). */
export type ChartRenderer = (specs: readonly (TopLevelSpec | null)[]) => Promise<string[]>;

/** In this thread, one chart after another (Vega is imported on the first). */
export const renderChartsHere: ChartRenderer = async (specs) => {
  const charts: string[] = [];
  for (const spec of specs) charts.push(spec ? await renderChart(spec) : '');
  return charts;
};

/**
 * The charts of report.html rendered on the second core. Importing Vega and
 * Vega-Lite (~200 modules) and rendering the charts was most of the reports
 * step of a run (~0.3 of its ~0.45 s of main-thread CPU at 10,000 trials),
 * while the same thread wrote junit.xml and report.md after it. A worker
 * imports Vega and draws while this thread writes those two and the page's
 * embedded trials; the page is put together here once its charts come back.
 * (The run's finalizer starts it once the trials' garbage is handed back, so
 * its ~40 MB never come on top of that: src/run/finalizer.ts.)
 *
 * The worker runs the very `renderChart` of render-chart.ts (so the SVG is
 * the same bytes as in-process): the compiled module, or in a source
 * checkout (and the tests) the TypeScript one through tsx, which the worker
 * registers for itself — a worker thread does not inherit the loader hooks.
 *
 * A worker that fails (it could not load, it crashed) rejects `render` with
 * the reason: the reports step fails, and its caller leaves no report half
 * written. Used once: `render` ends the worker; `stop` ends an unused one.
 * `ready` settles once the worker's isolate is set up on its thread (node's
 * 'online' event), or it failed or ended first: it never rejects.
 */
export interface ChartWorker {
  render: ChartRenderer;
  stop(): void;
  ready: Promise<void>;
}

const require = createRequire(import.meta.url);

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// The first toLocaleString of a process loads ICU's number formats (~10–25 ms);
// the reports' main thread formats numbers next, and finds them loaded.
(0).toLocaleString('en-US');
let asked = false;
// The warm-up's compilations to Vega, which the page's charts of the same shapes reuse (render-chart.ts).
let compiled;
const loaded = (async () => {
  // Vega first, through node's own loader: once tsx is registered every module would go through its hooks too.
  await Promise.all(workerData.modules.map((url) => import(url)));
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const renderer = await import(workerData.renderer);
  compiled = renderer.compiledCharts();
  // Until the page's charts are asked for (they are drawn after the stage of
  // the chart in hand: render-chart.ts), or the cores turn out to be crowded:
  // the trials need the second core then (core-room.ts). The first chart is
  // always drawn: the crowding is judged only from the time the thread spent on it.
  if (workerData.warmUp) {
    const crowded = renderer.crowdedSince();
    await renderer.warmUpCharts(workerData.warmUp, (drawn) => asked || (drawn > 0 && crowded()), compiled);
  }
  return renderer;
})();
// A failed load is reported once asked to render (a worker nobody asks is ended unread).
loaded.catch(() => {});
parentPort.once('message', async (specs) => {
  asked = true;
  try {
    const { renderChart } = await loaded;
    const charts = [];
    for (const spec of specs) charts.push(spec ? await renderChart(spec, compiled) : '');
    parentPort.postMessage({ charts });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

/**
 * tsx's loader API, its ES module build: `require.resolve` names the CommonJS
 * build, whose `register` cannot find its hooks when called from a worker.
 */
function tsxLoader(): string {
  return pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
}

/** dist/src/report/html/render-chart.js, an entry point of the build (see `distModule`). */
function compiledRenderer(): URL {
  const renderer = distModule(import.meta.url, 'src/report/html/render-chart.js');
  if (!renderer) throw new Error(`report.html: the chart renderer is not beside ${import.meta.url}`);
  return renderer;
}

/**
 * Start the worker now (it imports Vega at once); render with it later.
 * `warmUp`: charts it draws and forgets once Vega is loaded, until the page
 * is asked for (render-chart.ts, `warmUpCharts`) — for a worker started
 * long before the reports. `youngGenerationMb`: the cap of its young
 * generation (default 4 MB, for a large run's peak memory).
 */
export function startChartWorker(
  options: { warmUp?: readonly TopLevelSpec[]; youngGenerationMb?: number } = {},
): ChartWorker {
  // This module's own extension says which: dist/ (.js) or the TypeScript sources (.ts).
  const fromSource = new URL(import.meta.url).pathname.endsWith('.ts');
  const renderer = fromSource ? new URL('./render-chart.ts', import.meta.url) : compiledRenderer();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Vega's drawing would grow the worker's young generation to V8's default
    // maximum, tens of MB on top of a large run's peak (the worker starts at
    // the end of the run); 4 MB kept the peak ~10–30 MB lower (docs/performance.md,
    // round 7). A small run's finalizer asks for more (src/run/finalizer.ts).
    resourceLimits: { maxYoungGenerationSizeMb: options.youngGenerationMb ?? 4 },
    workerData: {
      renderer: renderer.href,
      // Compiled, the renderer has Vega inside (scripts/build.js).
      modules: fromSource ? ['vega', 'vega-lite'].map((name) => pathToFileURL(require.resolve(name)).href) : [],
      tsx: fromSource ? tsxLoader() : null,
      warmUp: options.warmUp ?? null,
    },
  });
  let failure: Error | null = null;
  worker.on('error', (error) => void (failure ??= error));
  let used = false;
  // Held by the event loop only until it is set up (a caller may await `ready` with nothing else pending),
  // then idle until asked: a run that fails before its reports does not wait for it.
  const ready = new Promise<void>((resolve) => {
    const settle = () => {
      if (!used) worker.unref();
      resolve();
    };
    worker.once('online', settle);
    worker.once('error', settle);
    worker.once('exit', settle);
  });
  return {
    ready,
    async render(specs) {
      if (used) throw new Error('the chart worker renders one page');
      used = true;
      worker.ref();
      try {
        const reply = await new Promise<{ charts?: string[]; error?: string }>((resolve, reject) => {
          if (failure) reject(failure);
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`exited with code ${code} before the charts were drawn`)));
          worker.postMessage(specs);
        });
        if (reply.error !== undefined || !reply.charts) throw new Error(reply.error ?? 'no charts in its reply');
        return reply.charts;
      } catch (error) {
        throw new Error(`report.html: the chart renderer (a worker thread) failed: ${(error as Error).message}`, {
          cause: error,
        });
      } finally {
        void worker.terminate();
      }
    },
    stop() {
      void worker.terminate();
    },
  };
}

/**
 * Start drawing a page's charts now, from `specs` made before the reports
 * (a small run's, as its summary is written: src/run/finalizer.ts), and
 * return the renderer the page is then made with. It hands over that
 * drawing when the page asks for the same specs, which is what the early
 * drawing is for: its ~150 ms no longer start only once report.md and
 * junit.xml are under way. Asked for other specs, it draws those here, so
 * the page always shows what it asks for.
 */
export function drawAhead(worker: ChartWorker, specs: readonly (TopLevelSpec | null)[]): ChartRenderer {
  const drawn = worker.render(specs);
  // Awaited by the page; a failure meanwhile is not an unhandled rejection.
  drawn.catch(() => {});
  return (asked) => (isDeepStrictEqual(asked, specs) ? drawn : renderChartsHere(asked));
}
