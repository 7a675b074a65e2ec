import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDistinctCassette } from '../../scripts/bench/distinct-cassette.ts';
import { DISTINCT_CASSETTE, firstTurnOf, writeDistinctProject } from '../../scripts/bench/distinct-suite.ts';
import { phasesOf } from '../../scripts/bench/whole-process.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { runCli } from '../helpers/cli.ts';

// Figure 5's generator (issue 20) and `run --timings`, which the figure reads.
// No timings asserted: only that the phases are there, in order, and that
// printing them changes nothing in the run folder.

const TASKS = 100;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolmark-distinct-test-'));
  writeDistinctProject(root, { tasks: TASKS });
  await recordDistinctCassette(root);
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('distinct-tasks workload', { timeout: 240_000 }, () => {
  it('mixes first turns as promptfoo’s recipe does: 20 wrong tools and 2 malformed calls per hundred tasks', () => {
    const turns = Array.from({ length: 100 }, (_unused, n) => firstTurnOf(n));
    expect(turns.filter((turn) => turn === 'wrong')).toHaveLength(20);
    expect(turns.filter((turn) => turn === 'malformed')).toHaveLength(2);
    // Two turns per task (the call, then the answer), one wildcard line each.
    const lines = readFileSync(path.join(root, DISTINCT_CASSETTE), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2 * TASKS);
  });

  it('`run --timings` prints each phase once, in order, and leaves the run folder as without it', async () => {
    const timed = await runCli(['run', '--root', root, '--run-id', 'timed', '--timings']);
    const plain = await runCli(['run', '--root', root, '--run-id', 'plain']);
    expect(timed.code, timed.stderr).toBe(0);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('timings:');
    const timings = phasesOf(timed.stderr)!;
    expect(timings.phases.map((phase) => phase.phase)).toEqual([
      'start-up',
      'load',
      'preflight',
      'trials',
      'summary',
      'reports',
      'output',
    ]);
    expect(timings.phases.every((phase) => phase.wall_ms >= 0 && phase.cpu_ms >= 0)).toBe(true);
    // 80 right first calls, of which the must-call check passes: 20 wrong tools and 2 malformed fail.
    expect(timed.stdout).toMatch(/desk-v1\s+100\s+78%/);
    const read = (run: string, file: string) =>
      readFileSync(path.join(root, 'results', run, file), 'utf8').replaceAll(run, 'RUN');
    for (const file of [RUN_FILES.summary, 'report.md', 'junit.xml'])
      expect(read('timed', file), file).toBe(read('plain', file));
  });
});
