import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { executeRun, planTrials, preflight } from '../../src/solve/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { scoreTrial } from '../../src/score/index.ts';
import { CassetteLine, TASK_KINDS } from '../../src/spec/index.ts';
import { createProviders, parseProviderSpec } from '../../providers/index.ts';
import { BAD_EVERY, BAD_OFFSET, recordBenchCassette } from '../../scripts/bench/cassette.ts';
import { BENCH_SURFACES, CASSETTE_PATH, writeBenchProject } from '../../scripts/bench/suite.ts';
import { benchTasks } from '../../scripts/bench/tasks.ts';

// The bench's generators must produce a suite that loads, a cassette that
// replays every planned trial without a stale or missing turn, and trials
// that grade as scripted. No timings here: those live in `npm run bench`.

const TRIALS = 12;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolmark-bench-test-'));
  writeBenchProject(root, { trials: TRIALS });
  await recordBenchCassette(root, TRIALS);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('bench suite generator', () => {
  it('writes a project the loader accepts: every kind, both splits, all surfaces', async () => {
    const project = await loadProject(root);
    expect(project.domains.map((domain) => domain.name)).toEqual(['bench']);
    const [domain] = project.domains;
    expect(domain!.surfaces.map((surface) => surface.id).sort()).toEqual([...BENCH_SURFACES].sort());
    expect(domain!.tasks).toHaveLength(benchTasks().length);
    expect(new Set(domain!.tasks.map((task) => task.kind))).toEqual(new Set(TASK_KINDS));
    expect(new Set(domain!.tasks.map((task) => task.split))).toEqual(new Set(['train', 'heldout']));
    expect(domain!.tasks.some((task) => task.kind === 'multi-step' && task.expect.sequence!.length >= 3)).toBe(true);
  });

  it('records a cassette of valid lines: one wildcard line per turn, trial lines only for the miss trials', () => {
    const lines = readFileSync(path.join(root, CASSETTE_PATH), 'utf8')
      .trim()
      .split('\n')
      .map((text) => CassetteLine.parse(JSON.parse(text)));
    expect(lines.every((line) => line.request_hash?.startsWith('sha256:') && line.label?.startsWith('synthetic'))).toBe(
      true,
    );
    const trials = new Set(lines.map((line) => line.key.trial));
    const expected = [
      '*',
      ...Array.from({ length: TRIALS }, (_unused, trial) => trial).filter((trial) => trial % BAD_EVERY === BAD_OFFSET),
    ];
    expect([...trials].sort()).toEqual(expected.sort());
  });

  it('replays every planned trial through the run path with no errored trial, and grades misses apart from the usual behaviour', async () => {
    const project = await loadProject(root);
    const config = project.config;
    const providers = await createProviders(parseProviderSpec(config.run.providers[0]!), { config, env: {}, root });
    const plan = planTrials(project.domains, providers, { split: 'all', trials: TRIALS });
    expect(plan).toHaveLength(benchTasks().length * BENCH_SURFACES.length * TRIALS);
    const settings = { temperature: config.run.temperature, max_tokens: config.run.max_tokens };
    expect(() => preflight(plan, { settings })).not.toThrow();
    const runDir = path.join(root, 'results', 'test-run');
    (await import('node:fs')).mkdirSync(runDir, { recursive: true });
    const outcome = await executeRun({
      runDir,
      plan,
      concurrency: 4,
      settings,
      finish: (record, planned) => scoreTrial(record, planned.task, planned.domain.domain.actions),
    });
    expect(outcome).toMatchObject({ ran: plan.length, errored: 0 });

    const byTrial = new Map<number, { passed: number; total: number }>();
    for await (const record of readTrials(runDir)) {
      const entry = byTrial.get(record.trial) ?? { passed: 0, total: 0 };
      entry.total += 1;
      if (record.success) entry.passed += 1;
      byTrial.set(record.trial, entry);
    }
    // Usual trials pass except the tasks scripted to be weak on wide surfaces; miss trials pass (almost) nothing.
    const usual = byTrial.get(0)!;
    const miss = byTrial.get(BAD_OFFSET)!;
    expect(usual.passed / usual.total).toBeGreaterThan(0.8);
    expect(usual.passed).toBeLessThan(usual.total);
    expect(miss.passed / miss.total).toBeLessThan(0.2);
  });
});
