import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChartsHere, startChartWorker, type ChartRenderer } from '../../src/report/html/chart-worker.ts';
import { htmlChartSpecs } from '../../src/report/html/page.ts';
import { renderChart, warmUpCharts } from '../../src/report/html/render-chart.ts';
import { warmUpChartSpecs } from '../../src/report/html/warm-up-specs.ts';
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
    const drawn: number[] = [];
    const broken = { data: { values: [] }, mark: 'no-such-mark' } as never;
    const specs = [broken, ...warmUpChartSpecs(2)];
    await warmUpCharts(specs, () => (drawn.push(drawn.length), drawn.length > 2));
    // Asked before each chart: the broken one and the first made-up one were drawn, then it stopped.
    expect(drawn).toEqual([0, 1, 2]);
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
