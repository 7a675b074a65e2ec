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

/** The run's data with `planned` trials, its tables noting in `made` when they are made (the run's totals are read for them). */
function plannedData(data: RunData, planned: number, made: string[]): RunData {
  const totals = { ...data.totals };
  Object.defineProperty(totals, 'trials', {
    get: () => {
      made.push('tables');
      return data.totals.trials;
    },
  });
  return { ...data, manifest: { ...data.manifest, planned }, totals };
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
  it("makes a small run's tables before its charts come back, a large run's only after; the pages are the same, the trials the sample's bytes", async () => {
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
      expect(made.length > 0).toBe(planned === SMALL_RUN_TRIALS);
      draw();
      const chunks = [...(await page)];
      expect(made.length).toBeGreaterThan(0);
      // Every embedded trial is written from the bytes the sample kept, as they are.
      const bytes = chunks.filter((chunk) => chunk instanceof Uint8Array);
      expect(bytes).toHaveLength(data.sample.trials.length);
      expect(bytes.every((chunk, index) => chunk === data.sample.trials[index]!.bytes)).toBe(true);
      pages.push(pageText(chunks));
    }
    expect(pages[0]).toContain('<svg data-chart="0">');
    expect(pages[0]).toBe(pages[1]);
  });
});
