import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChartsHere, startChartWorker, type ChartRenderer } from '../../src/report/html/chart-worker.ts';
import { htmlChartSpecs } from '../../src/report/html/page.ts';
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
