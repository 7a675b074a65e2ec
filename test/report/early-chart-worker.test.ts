import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRunFinalizer } from '../../src/run/finalizer.ts';
import type { RunEvents } from '../../src/run/events.ts';
import { SMALL_RUN_TRIALS } from '../../src/spec/run-size.ts';
import { drawAhead } from '../../src/report/html/chart-worker.ts';
import { warmUpChartSpecs } from '../../src/report/html/warm-up-specs.ts';
import { ProjectConfig } from '../../src/spec/index.ts';
import { writeFixtureRun } from './fixture-run.ts';

/** Every chart worker the finalizer starts: whether it warms up, how often it drew and was stopped. */
const workers: { warmUp: boolean; renders: number; stops: number }[] = [];
/** Those set up on their thread (`ready`, a little after they start). */
const online = new WeakSet<(typeof workers)[number]>();

vi.mock('../../src/report/html/chart-worker.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/report/html/chart-worker.ts')>();
  return {
    ...original,
    startChartWorker: (options: { warmUp?: readonly unknown[] } = {}) => {
      const worker = { warmUp: (options.warmUp?.length ?? 0) > 0, renders: 0, stops: 0 };
      workers.push(worker);
      return {
        // Marked, so a test sees which drawing a page shows.
        render: async (specs: Parameters<typeof original.renderChartsHere>[0]) => {
          worker.renders += 1;
          return specs.map((spec, index) => (spec ? `<svg data-worker-chart="${index}"></svg>` : ''));
        },
        stop: () => void (worker.stops += 1),
        ready: new Promise<void>((resolve) => setTimeout(() => resolve(void online.add(worker)), 5)),
      };
    },
  };
});

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-early-charts-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});
beforeEach(() => {
  workers.length = 0;
});

/** A finalizer fed a fixture run's trials, its summary written; its manifest as the runner would pass it (planned: as given), or none. */
async function fedFinalizer(name: string, planned: number | undefined, trials = 2, events?: RunEvents) {
  const dir = join(workDir, name);
  const { records, manifest } = await writeFixtureRun(dir, { trials });
  const finalizer = createRunFinalizer({
    runId: 'fixture-run',
    config: ProjectConfig.parse({}),
    synthetic: false,
    events,
    manifest: planned === undefined ? undefined : { ...manifest, planned },
  });
  const startedWithTheTrials = workers.length;
  for (const record of records) finalizer.add(record);
  finalizer.writeSummary(dir);
  return { dir, finalizer, startedWithTheTrials };
}

describe("a run's chart worker", () => {
  it('starts with the trials of a small run, warmed up, draws once the summary is made, and the page shows those charts', async () => {
    const { dir, finalizer, startedWithTheTrials } = await fedFinalizer('small', 64);
    expect(startedWithTheTrials).toBe(1);
    expect(workers).toEqual([{ warmUp: true, renders: 1, stops: 0 }]);
    await finalizer.writeReports(dir);
    expect(workers).toEqual([{ warmUp: true, renders: 1, stops: 1 }]);
    // The page shows the charts drawn ahead, not a drawing of its own.
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html.match(/<svg data-worker-chart=/g)?.length).toBeGreaterThanOrEqual(4);
    expect(html).not.toContain('<svg role="img"');
  });

  it('draws the page ahead with flipped tasks and without (one trial per task: asked before the outcomes are made)', async () => {
    for (const trials of [2, 1]) {
      workers.length = 0;
      const { dir, finalizer } = await fedFinalizer(`flipped-${trials}`, 64, trials);
      await finalizer.writeReports(dir);
      const html = readFileSync(join(dir, 'report.html'), 'utf8');
      expect(
        html.includes(
          'id="flipped"><h2>Flipped tasks</h2><p class="note">Tasks whose trials disagree on a surface: 0 task(s)',
        ),
      ).toBe(trials === 1);
      expect(workers).toEqual([{ warmUp: true, renders: 1, stops: 1 }]);
      expect(html).not.toContain('<svg role="img"');
    }
  });

  it('starts only when the reports render for a larger run, or one of unknown size', async () => {
    for (const planned of [SMALL_RUN_TRIALS + 1, undefined]) {
      workers.length = 0;
      const { dir, finalizer, startedWithTheTrials } = await fedFinalizer(`large-${planned}`, planned);
      expect(startedWithTheTrials).toBe(0);
      expect(workers).toEqual([]);
      await finalizer.writeReports(dir);
      expect(workers).toEqual([{ warmUp: false, renders: 1, stops: 1 }]);
    }
  });

  it('is set up on its thread before the memory is released for the reports (its isolate resets the young generation)', async () => {
    const onlineAtRelease: boolean[] = [];
    const events: RunEvents = {
      betweenPhases: async () => void onlineAtRelease.push(...workers.map((worker) => online.has(worker))),
    };
    const { dir, finalizer } = await fedFinalizer('ready', SMALL_RUN_TRIALS + 1, 2, events);
    await finalizer.writeReports(dir);
    expect(onlineAtRelease).toEqual([true]);
  });

  it('is stopped when a small run ends without its reports (dispose), once', async () => {
    const { finalizer } = await fedFinalizer('failed', 64);
    finalizer.dispose();
    finalizer.dispose();
    expect(workers).toEqual([{ warmUp: true, renders: 1, stops: 1 }]);
  });
});

describe('charts drawn ahead', () => {
  it('are handed to the page that asks for the same specs, and other specs are drawn here', async () => {
    const specs = [warmUpChartSpecs(1)[0]!, null];
    let drawnInWorker = 0;
    const worker = {
      render: async (asked: readonly unknown[]) => asked.map(() => `worker ${(drawnInWorker += 1)}`),
      stop: () => {},
      ready: Promise.resolve(),
    };
    const renderer = drawAhead(worker, specs);
    expect(await renderer(JSON.parse(JSON.stringify(specs)))).toEqual(['worker 1', 'worker 2']);
    const other = [warmUpChartSpecs(2)[1]!];
    const here = await renderer(other);
    expect(drawnInWorker).toBe(2);
    expect(here).toHaveLength(1);
    expect(here[0]).toMatch(/^<svg role="img" /);
  });
});
