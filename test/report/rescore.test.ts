import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAggregator } from '../../src/aggregate/index.ts';
import { loadProject } from '../../src/load/index.ts';
import { readManifest, readTrials } from '../../src/run-folder/index.ts';
import { scoreTrial } from '../../src/score/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';
import { recordBenchCassette } from '../../scripts/bench/cassette.ts';
import { writeBenchProject, writeBenchTasks, writeTasksWithOneEdited } from '../../scripts/bench/suite.ts';
import { benchTasks } from '../../scripts/bench/tasks.ts';
import { runCli } from '../helpers/cli.ts';

// `toolmark report RUN --rescore`: grade a finished run again against the
// project's tasks as they are now, through the real CLI, on a generated
// project (the bench suite: every kind, both splits) replayed for real.

const TRIALS = 3;
let root: string;
let original: string;

const cli = (args: string[]) => runCli(args, { cwd: root, timeoutMs: 240_000 });
const read = (file: string) => readFileSync(file, 'utf8');
const lines = (runDir: string) => read(path.join(runDir, 'trials.jsonl')).trimEnd().split('\n');

/** A fresh copy of the original run to re-score. */
function copyRun(name: string): string {
  const runDir = path.join(root, 'results', name);
  cpSync(original, runDir, { recursive: true });
  return runDir;
}

/** Every recorded trial graded by scoreTrial against `root`'s tasks now, in file order. */
async function gradedNow(runDir: string): Promise<TrialRecord[]> {
  const project = await loadProject(root);
  const [domain] = project.domains;
  const tasks = new Map(domain!.tasks.map((task) => [task.id, task]));
  const records: TrialRecord[] = [];
  for await (const record of readTrials(runDir))
    records.push(
      scoreTrial({ ...record, verdicts: [], success: null }, tasks.get(record.task)!, domain!.domain.actions),
    );
  return records;
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolmark-rescore-'));
  writeBenchProject(root, { trials: TRIALS });
  await recordBenchCassette(root, TRIALS);
  const run = await cli(['run', '--root', root, '--run-id', 'original']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  original = path.join(root, 'results', 'original');
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('toolmark report', () => {
  it('re-renders exactly the reports the run wrote (same manifest, same trials, same bytes)', async () => {
    const runDir = copyRun('rerendered');
    const result = await cli(['report', runDir, '--root', root]);
    expect(result.code).toBe(0);
    for (const name of ['report.md', 'report.html', 'junit.xml'])
      expect(read(path.join(runDir, name)), name).toBe(read(path.join(original, name)));
  }, 300_000);
});

describe('toolmark report --rescore', () => {
  it('with the tasks unchanged: every verdict comes out the same, trials.jsonl and summary.json are untouched in content', async () => {
    const runDir = copyRun('same');
    const trialsBefore = statSync(path.join(runDir, 'trials.jsonl')).mtimeMs;
    const result = await cli(['report', runDir, '--root', root, '--rescore']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const total = lines(original).length;
    expect(result.stdout).toContain(`re-scored ${total} trials against the tasks in ${root}: 0 with changed verdicts`);
    expect(statSync(path.join(runDir, 'trials.jsonl')).mtimeMs).toBe(trialsBefore);
    expect(read(path.join(runDir, 'summary.json'))).toBe(read(path.join(original, 'summary.json')));
    for (const name of ['summary.json', 'report.md', 'report.html', 'junit.xml']) expect(result.stdout).toContain(name);
    expect(readManifest(runDir).rescored).toMatchObject({ trials: total, changed: 0 });
    // The reports say the verdicts were graded again, and otherwise show the run as it was.
    const note = new RegExp(
      `^> Re-scored \\S+ \\(toolmark [^)]+\\) against the tasks of that day: 0 of ${total} trials changed verdicts\\.$`,
      'm',
    );
    expect(read(path.join(runDir, 'report.md'))).toMatch(note);
    expect(read(path.join(runDir, 'report.md')).replace(/^> Re-scored .*\n\n/m, '')).toBe(
      read(path.join(original, 'report.md')),
    );
    expect(read(path.join(runDir, 'report.html'))).toContain(`0 of ${total} trials changed verdicts`);
    expect(read(path.join(runDir, 'junit.xml'))).toBe(read(path.join(original, 'junit.xml')));
  }, 300_000);

  it("after a task edit: only that task's lines change, to exactly what scoreTrial gives now, and summary.json follows", async () => {
    const runDir = copyRun('edited');
    const editedId = writeTasksWithOneEdited(root);
    try {
      const result = await cli(['report', runDir, '--root', root, '--rescore']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);

      const before = lines(original);
      const after = lines(runDir);
      expect(after).toHaveLength(before.length);
      const changed = after.flatMap((line, index) => (line === before[index] ? [] : [JSON.parse(line) as TrialRecord]));
      expect(changed.length).toBeGreaterThan(0);
      expect(new Set(changed.map((record) => record.task))).toEqual(new Set([editedId]));
      expect(result.stdout).toContain(`${changed.length} with changed verdicts (trials.jsonl rewritten)`);
      expect(result.stdout).toMatch(new RegExp(`bench/${editedId}: \\d+ now fail`));

      // The new file is exactly the old evidence with today's grades.
      const expected = await gradedNow(original);
      const rewritten: TrialRecord[] = [];
      for await (const record of readTrials(runDir)) rewritten.push(record);
      expect(rewritten).toEqual(expected);
      expect(changed.every((record) => record.success === false)).toBe(true);

      // summary.json is the aggregate of the rewritten trials (not of the recorded grades).
      const manifest = readManifest(runDir);
      const aggregator = createAggregator({
        runId: manifest.run_id,
        prices: (await loadProject(root)).config.prices,
        synthetic: true,
      });
      for (const record of rewritten) aggregator.add(record);
      expect(JSON.parse(read(path.join(runDir, 'summary.json')))).toEqual(
        JSON.parse(JSON.stringify(aggregator.finish())),
      );
      expect(read(path.join(runDir, 'summary.json'))).not.toBe(read(path.join(original, 'summary.json')));
      expect(manifest.rescored).toMatchObject({ trials: before.length, changed: changed.length });

      // A second re-score against the same tasks changes nothing more.
      const again = await cli(['report', runDir, '--root', root, '--rescore']);
      expect(again.stdout).toContain(': 0 with changed verdicts');
      expect(lines(runDir)).toEqual(after);
    } finally {
      writeBenchTasks(root, benchTasks());
    }
  }, 300_000);

  it('refuses, exit 2 before writing anything, when a task of the run is gone or changed kind', async () => {
    const runDir = copyRun('refused');
    const snapshot = () =>
      ['trials.jsonl', 'summary.json', 'manifest.json', 'report.md'].map((name) => read(path.join(runDir, name)));
    const before = snapshot();
    const tasks = benchTasks();
    const [removed] = tasks.splice(0, 1);
    writeBenchTasks(root, tasks);
    try {
      const result = await cli(['report', runDir, '--root', root, '--rescore']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`task bench/${String(removed!.spec.id)} of this run is not in the project`);
      expect(result.stderr).toContain('manifest.json');
      expect(result.stderr).not.toMatch(/\n\s+at /);

      const moved = benchTasks();
      const mustCall = moved.find((task) => task.spec.kind === 'must-call' && task.split === 'train')!;
      mustCall.split = 'heldout';
      writeBenchTasks(root, moved);
      const split = await cli(['report', runDir, '--root', root, '--rescore']);
      expect(split.code).toBe(2);
      expect(split.stderr).toContain(
        `task bench/${String(mustCall.spec.id)} was must-call in train and is now must-call in heldout`,
      );
      expect(snapshot()).toEqual(before);
    } finally {
      writeBenchTasks(root, benchTasks());
    }
  }, 300_000);
});
