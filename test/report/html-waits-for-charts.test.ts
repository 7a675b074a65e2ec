import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRun, htmlChartSpecs, pageText, renderHtmlChunks, type RunData } from '../../src/report/index.ts';
import { SMALL_RUN_TRIALS } from '../../src/spec/run-size.ts';
import { writeFixtureRun } from './fixture-run.ts';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-html-order-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** The run's data with `planned` trials, its embedded trials noting in `made` when each is embedded. */
function plannedData(data: RunData, planned: number, made: string[]): RunData {
  const trials = data.sample.trials.map((trial) => {
    const copy = { ...trial };
    // The page reads each trial's JSON text as it embeds it.
    Object.defineProperty(copy, 'json', {
      get: () => {
        made.push(trial.task);
        return trial.json;
      },
    });
    return copy;
  });
  return { ...data, manifest: { ...data.manifest, planned }, sample: { ...data.sample, trials } };
}

/** Each chart as a marked SVG, handed over only when `draw` is called. */
function chartsLater(data: RunData) {
  let draw!: () => void;
  const charts = new Promise<string[]>((resolve) => {
    draw = () => resolve(htmlChartSpecs(data).map((spec, index) => (spec ? `<svg data-chart="${index}"></svg>` : '')));
  });
  return { charts, draw };
}

describe('report.html while its charts are drawn elsewhere', () => {
  it("makes a small run's embedded trials before its charts come back, a large run's only as the page is written; the pages are the same", async () => {
    const dir = join(workDir, 'run');
    await writeFixtureRun(dir, { trials: 2 });
    const collected = await collectRun(dir);
    expect(collected.sample.trials.length).toBeGreaterThan(0);
    const pages: string[] = [];
    for (const planned of [SMALL_RUN_TRIALS, SMALL_RUN_TRIALS + 1]) {
      const made: string[] = [];
      const data = plannedData(collected, planned, made);
      const { charts, draw } = chartsLater(data);
      const page = renderHtmlChunks(data, charts);
      await new Promise((resolve) => setImmediate(resolve));
      expect(made).toHaveLength(planned === SMALL_RUN_TRIALS ? data.sample.trials.length : 0);
      draw();
      const chunks = [...(await page)];
      // A small run's embedded trials come encoded already (made while the charts were drawn).
      expect(chunks.some((chunk) => chunk instanceof Uint8Array)).toBe(planned === SMALL_RUN_TRIALS);
      pages.push(pageText(chunks));
      expect(made).toHaveLength(data.sample.trials.length);
    }
    expect(pages[0]).toContain('<svg data-chart="0">');
    expect(pages[0]).toBe(pages[1]);
  });
});
