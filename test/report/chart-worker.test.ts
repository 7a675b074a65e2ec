import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChartsHere, startChartWorker, type ChartRenderer } from '../../src/report/html/chart-worker.ts';
import { htmlChartSpecs } from '../../src/report/html/page.ts';
import { compiledCharts, renderChart, warmUpCharts } from '../../src/report/html/render-chart.ts';
import { runShapedChartSpecs, warmUpChartSpecs } from '../../src/report/html/warm-up-specs.ts';
import { collectRun, writeReports } from '../../src/report/index.ts';
import { GateConfig } from '../../src/spec/index.ts';
import { writeFixtureRun } from './fixture-run.ts';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-chart-worker-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the chart worker', () => {
  it("draws a run's charts exactly as they are drawn in this thread", async () => {
    const dir = join(workDir, 'same');
    await writeFixtureRun(dir, { trials: 3 });
    const specs = htmlChartSpecs(await collectRun(dir));
    expect(specs.filter(Boolean).length).toBeGreaterThanOrEqual(4);
    const inWorker = await startChartWorker().render(specs);
    const here = await renderChartsHere(specs);
    expect(inWorker).toEqual(here);
    expect(inWorker.filter((svg) => svg.startsWith('<svg role="img" ')).length).toBe(specs.filter(Boolean).length);
  });

  it('draws the same bytes after a warm-up as a fresh thread, though Vega numbers clip paths across charts', async () => {
    const dir = join(workDir, 'warm');
    await writeFixtureRun(dir, { trials: 3 });
    const specs = htmlChartSpecs(await collectRun(dir));
    const fresh = await startChartWorker().render(specs);
    // Without the reset, a chart drawn after others has other ids: what the warm-up must not change.
    const clipped = specs.findIndex((spec, index) => spec && fresh[index]!.includes('url(#clip1)'));
    expect(clipped).toBeGreaterThanOrEqual(0);
    await renderChart(warmUpChartSpecs(1)[0]!);
    expect(await renderChart(specs[clipped]!)).not.toBe(fresh[clipped]);

    await warmUpCharts(warmUpChartSpecs(), () => false);
    expect(await renderChartsHere(specs)).toEqual(fresh);
  });

  it('stops warming up once the page is asked for, and a warm-up chart that fails is skipped', async () => {
    const asked: number[] = [];
    const broken = { data: { values: [] }, mark: 'no-such-mark' } as never;
    const specs = [broken, ...warmUpChartSpecs(2)];
    await warmUpCharts(specs, (drawn) => (asked.push(drawn), drawn >= 2));
    // Asked before each chart and between its stages (the broken one fails in its first): two drawn, then it stopped.
    expect(asked).toEqual([0, 1, 1, 1, 2]);
  });

  it('stops in the middle of a chart, and sees messages that came while it drew', async () => {
    const specs = warmUpChartSpecs(2);
    let stopped = false;
    setImmediate(() => (stopped = true));
    const asked: number[] = [];
    await warmUpCharts(specs, (drawn) => (asked.push(drawn), stopped));
    // The first check comes after a turn of the event loop: the immediate above has run.
    expect(asked).toEqual([0]);
    let checks = 0;
    await warmUpCharts(specs, () => ++checks > 2);
    // Stopped between the first chart's stages (before its view is drawn), and the chart drawn next is as fresh.
    expect(checks).toBe(3);
    const dir = join(workDir, 'stopped');
    await writeFixtureRun(dir, { trials: 3 });
    const page = htmlChartSpecs(await collectRun(dir));
    expect(await renderChartsHere(page)).toEqual(await startChartWorker().render(page));
  });

  it("reuses the compilation of the warm-up's charts of the run's shape, and draws the same bytes", async () => {
    const dir = join(workDir, 'shaped');
    await writeFixtureRun(dir, { trials: 3 });
    const data = await collectRun(dir);
    const specs = htmlChartSpecs(data);
    const fresh = await startChartWorker().render(specs);
    const charts = compiledCharts();
    await warmUpCharts(runShapedChartSpecs(data.manifest), () => false, charts);
    expect(charts.size).toBe(3);
    const drawn = await Promise.all(specs.map((spec) => (spec ? renderChart(spec, charts) : '')));
    expect(drawn).toEqual(fresh);
    // Metric bars, success against tokens and pass curves were compiled already; only the others were added.
    expect(charts.size).toBe(3 + specs.filter(Boolean).length - 3);
  });

  it('draws the page as a fresh worker does when started with charts to warm up on', async () => {
    const dir = join(workDir, 'early');
    await writeFixtureRun(dir, { trials: 2 });
    const specs = htmlChartSpecs(await collectRun(dir));
    const [early, fresh] = await Promise.all([
      startChartWorker({ warmUp: warmUpChartSpecs() }).render(specs),
      startChartWorker().render(specs),
    ]);
    expect(early).toEqual(fresh);
  });

  it('fails with the reason when a chart cannot be drawn, and renders once only', async () => {
    const worker = startChartWorker();
    const broken = { data: { values: [] }, mark: 'no-such-mark' } as never;
    const reason = await renderChartsHere([broken]).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(reason).toBeTruthy();
    await expect(worker.render([broken])).rejects.toThrow(
      `report.html: the chart renderer (a worker thread) failed: ${reason}`,
    );
    await expect(worker.render([])).rejects.toThrow(/renders one page/);
  });

  it('writes report.md and junit.xml before the charts are awaited, and throws their failure without writing report.html', async () => {
    const dir = join(workDir, 'failing');
    await writeFixtureRun(dir, { trials: 2 });
    const data = await collectRun(dir);
    const written: string[] = [];
    const failing: ChartRenderer = () => Promise.reject(new Error('the renderer broke'));
    await expect(writeReports(data, GateConfig.parse({}), (file) => void written.push(file), failing)).rejects.toThrow(
      'the renderer broke',
    );
    expect(written.map((file) => file.slice(dir.length + 1))).toEqual(['report.md', 'junit.xml']);
    expect((await readdir(dir)).filter((name) => name.startsWith('report.html'))).toEqual([]);
  });
});
