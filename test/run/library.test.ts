import { mkdtempSync, readFileSync, rmSync, truncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalizeRun, mergeRuns, rescoreRun, resumeRun, runProject, type RunPhase } from '../../src/run/index.ts';
import { RUN_FILES, readManifest } from '../../src/run-folder/index.ts';
import { ConfigError } from '../../src/spec/index.ts';

// The run library called directly, as a script or another program would:
// no subprocess, no CLI, nothing printed. The shipped project with the
// scripted provider (no key) and a few tasks to stay quick.
const root = path.resolve(import.meta.dirname, '../..');
const selection = { providers: ['scripted'], domains: ['tickets'], task: 'tickets-s*', trials: 1 };
let out: string;

beforeEach(() => {
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-run-library-'));
});
afterEach(() => {
  rmSync(out, { recursive: true, force: true });
});

const read = (runDir: string, file: string) => readFileSync(path.join(runDir, file), 'utf8');
/** summary.json without the run id, which differs between two runs of the same plan. */
const summaryOf = (runDir: string) => read(runDir, RUN_FILES.summary).replace(/"run_id": "[^"]+"/, '"run_id": "-"');

// Each test renders the reports of up to four runs (Vega): generous on a shared machine.
describe('src/run', { timeout: 180_000 }, () => {
  it('runProject runs, reports progress and phases through events, and returns what it wrote', async () => {
    const phases: string[] = [];
    const seen: {
      start?: { total: number; skipped: number; todo: number };
      trials: number;
      released: (number | undefined)[];
    } = {
      trials: 0,
      released: [],
    };
    const result = await runProject({
      root,
      out,
      runId: 'first',
      selection,
      events: {
        onStart: (info) => void (seen.start = info),
        onTrial: () => void (seen.trials += 1),
        onPhase: (phase: RunPhase) => void phases.push(phase),
        betweenPhases: async (planned) => {
          seen.released.push(planned);
          phases.push(`between ${phases.at(-1)}`);
        },
      },
    });
    // After start-up, after the trials and before the reports render: where the CLI hands memory back, by the run's size.
    expect(phases).toEqual([
      'load',
      'preflight',
      'between preflight',
      'trials',
      'summary',
      'between summary',
      'reports',
      'between reports',
    ]);
    expect(seen.released).toEqual([result.manifest.planned, result.manifest.planned, result.manifest.planned]);
    expect(seen.start).toEqual({
      total: result.manifest.planned,
      planned: result.manifest.planned,
      skipped: 0,
      todo: result.manifest.planned,
      live: false,
      runDir: result.runDir,
      // run.user_code_limit_ms, unset in this project: the default, 60 s.
      userCodeLimitMs: 60_000,
    });
    expect(seen.trials).toBe(result.manifest.planned);
    expect(result.outcome).toMatchObject({ ran: result.manifest.planned, skipped: 0, interrupted: false });
    expect(result.runDir).toBe(path.join(out, 'first'));
    expect(result.manifest.finished_at).not.toBeNull();
    // The stored selection is typed and complete: what a resume replays.
    expect(readManifest(result.runDir).config.selection).toEqual({
      providers: ['scripted'],
      surfaces: [],
      split: 'all',
      trials: 1,
      domains: ['tickets'],
      task: 'tickets-s*',
      shard: null,
      allow_stale: false,
      tool_time: 'simulated',
    });
    expect(JSON.parse(read(result.runDir, RUN_FILES.summary))).toEqual(result.summary);
    for (const report of ['report.md', 'report.html', 'junit.xml'])
      expect(statSync(path.join(result.runDir, report)).size).toBeGreaterThan(0);
  });

  it('bad input is a ConfigError before anything is written', async () => {
    await expect(
      runProject({ root, out, runId: 'bad', selection: { ...selection, surfaces: ['typed-v9'] } }),
    ).rejects.toThrow(ConfigError);
    await expect(runProject({ root, out, runId: 'bad', selection: { ...selection, trials: 0 } })).rejects.toThrow(
      /trials/,
    );
    await expect(resumeRun({ root, out, run: 'nope' })).rejects.toThrow(/no run folder "nope"/);
    expect(() => statSync(path.join(out, 'bad'))).toThrow();
  });

  it('a stop signal ends the run early; resumeRun completes it to the same summary as an uninterrupted run', async () => {
    const whole = await runProject({ root, out, runId: 'whole', selection });
    const stop = new AbortController();
    let ran = 0;
    const cut = await runProject({
      root,
      out,
      runId: 'cut',
      selection: { ...selection },
      stop: stop.signal,
      events: { onTrial: () => void (++ran >= 3 && stop.abort()) },
    });
    expect(cut.outcome.interrupted).toBe(true);
    expect(cut.manifest.finished_at).toBeNull();
    const resumed = await resumeRun({ root, out, run: 'cut' });
    expect(resumed.outcome.skipped).toBe(cut.outcome.ran);
    expect(resumed.outcome.skipped + resumed.outcome.ran).toBe(whole.manifest.planned);
    expect(summaryOf(resumed.runDir)).toBe(summaryOf(whole.runDir));
  });

  it('mergeRuns of two shards equals the whole run; finalizeRun and rescoreRun rebuild the same summary', async () => {
    const whole = await runProject({ root, out, runId: 'whole', selection });
    await runProject({ root, out, runId: 'shard-1', selection: { ...selection, shard: '1/2' } });
    await runProject({ root, out, runId: 'shard-2', selection: { ...selection, shard: '2/2' } });
    const merged = await mergeRuns({ runs: ['shard-1', path.join(out, 'shard-2'), 'shard-1'], out, runId: 'merged' });
    expect(merged).toMatchObject({ merged: 2, trials: whole.manifest.planned, duplicates: 0 });
    expect(merged.manifest.config.merged_from).toEqual(['shard-1', 'shard-2']);
    expect(summaryOf(merged.runDir)).toBe(summaryOf(whole.runDir));

    // A run killed before its summary: finalizeRun makes it from trials.jsonl as it is.
    truncateSync(path.join(whole.runDir, RUN_FILES.summary), 0);
    const finalized = await finalizeRun({ runDir: whole.runDir });
    expect(finalized.trials).toBe(whole.manifest.planned);
    expect(finalized.summary).toEqual(whole.summary);

    const rescored = await rescoreRun({ runDir: whole.runDir, root });
    expect(rescored).toMatchObject({ trials: whole.manifest.planned, changed: 0 });
    expect(rescored.summary).toEqual(whole.summary);
    expect(readManifest(whole.runDir).rescored).toMatchObject({ trials: whole.manifest.planned, changed: 0 });
  });
});
