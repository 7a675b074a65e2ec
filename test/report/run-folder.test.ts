import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRun, renderRunReports } from '../../src/report/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { ConfigError, GateConfig } from '../../src/spec/index.ts';
import { fixtureTrials, writeFixtureRun } from './fixture-run.ts';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-run-folder-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

async function expectConfigError(promise: Promise<unknown>, pattern: RegExp): Promise<ConfigError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).message).toMatch(pattern);
  return error as ConfigError;
}

describe('reading a run folder', () => {
  it('streams every trial record back', async () => {
    const dir = join(workDir, 'ok');
    const { records } = await writeFixtureRun(dir);
    const read = await collect(readTrials(dir));
    expect(read).toHaveLength(records.length);
    expect(read.map((record) => `${record.surface}/${record.task}/${record.trial}`)).toEqual(
      records.map((record) => `${record.surface}/${record.task}/${record.trial}`),
    );
  });

  it('skips an unterminated last line (a trial in flight when the run was killed)', async () => {
    const dir = join(workDir, 'killed');
    const { records } = await writeFixtureRun(dir);
    await appendFile(join(dir, 'trials.jsonl'), JSON.stringify(records[0]).slice(0, 120));
    expect(await collect(readTrials(dir))).toHaveLength(records.length);
  });

  it('names the line of a corrupt record in the middle', async () => {
    const dir = join(workDir, 'corrupt');
    await writeFixtureRun(dir);
    const lines = (await readFile(join(dir, 'trials.jsonl'), 'utf8')).split('\n');
    lines[4] = '{"v":1,"provider":"replay"}';
    await writeFile(join(dir, 'trials.jsonl'), lines.join('\n'));
    const error = await expectConfigError(collect(readTrials(dir)), /trials\.jsonl:5: .*invalid TrialRecord/);
    expect(error.issues[0]!.line).toBe(5);
    lines[4] = 'not json';
    await writeFile(join(dir, 'trials.jsonl'), lines.join('\n'));
    await expectConfigError(collect(readTrials(dir)), /trials\.jsonl:5: not JSON/);
  });

  it('rejects folders that are not runs with a ConfigError', async () => {
    await expectConfigError(
      renderRunReports(join(workDir, 'does-not-exist'), { gate: GateConfig.parse({}) }),
      /not a run folder/,
    );
    const dir = join(workDir, 'unfinished');
    await writeFixtureRun(dir);
    await rm(join(dir, 'summary.json'));
    await expectConfigError(renderRunReports(dir, { gate: GateConfig.parse({}) }), /missing summary\.json/);
    await writeFile(join(dir, 'summary.json'), '{"v":2}');
    await expectConfigError(renderRunReports(dir, { gate: GateConfig.parse({}) }), /summary\.json: .*invalid Summary/);
  });

  it('reduces a large run to bounded data: counts per task, a capped sample', async () => {
    const dir = join(workDir, 'large');
    await writeFixtureRun(dir);
    // 40 trials per task × surface: 1,280 records, written in several appends as a runner would.
    const records = fixtureTrials({ trials: 40 });
    await writeFile(join(dir, 'trials.jsonl'), '');
    for (let start = 0; start < records.length; start += 400) {
      await appendFile(
        join(dir, 'trials.jsonl'),
        records
          .slice(start, start + 400)
          .map((record) => `${JSON.stringify(record)}\n`)
          .join(''),
      );
    }
    const data = await collectRun(dir, { sampleLimit: 50 });
    expect(data.totals.trials).toBe(records.length);
    expect(data.totals.errored).toBe(records.filter((record) => record.status === 'errored').length);
    expect(data.totals.passed).toBe(records.filter((record) => record.success === true).length);
    expect(data.outcomes).toHaveLength(32);
    expect(data.outcomes.every((outcome) => outcome.trials === 40 && outcome.outcomes.length === 40)).toBe(true);
    expect(data.outcomes.every((outcome) => outcome.failedTrials.length <= 3)).toBe(true);
    expect(data.sample.trials).toHaveLength(50);
    expect(data.sample.total).toBe(records.length);
    // The sample is spread over the run, not the first trials written.
    expect(new Set(data.sample.trials.map((trial) => trial.surface)).size).toBe(2);
    const again = await collectRun(dir, { sampleLimit: 50 });
    expect(again.sample.trials.map((trial) => `${trial.task}#${trial.trial}`)).toEqual(
      data.sample.trials.map((trial) => `${trial.task}#${trial.trial}`),
    );
  });
});
