import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createTrialSample,
  toBrowserTrial,
  type BrowserTrial,
  type SampleTrial,
} from '../../src/report/trial-sample.ts';
import type { TrialRecord } from '../../src/spec/index.ts';
import { TrialAppender, readTrialLinesAt, type TrialLinePlace } from '../../src/run-folder/index.ts';
import { fixtureTrials } from './fixture-run.ts';
import { jsonForScript } from './json-for-script.ts';

/** FNV-1a over the trial's identity: the sampler's documented priority, computed here on its own. */
function fnv(record: TrialRecord): number {
  const text = [record.provider, record.model, record.surface, record.task, String(record.trial)].join('\u0000');
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return hash;
}

/** The sample by brute force: problems first, then passes, each by (priority, order offered); then display order. */
function bruteForce(records: TrialRecord[], limit: number): string[] {
  const ranked = (list: TrialRecord[]) =>
    list
      .map((record, order) => ({ record, order, priority: fnv(record) }))
      .sort((a, b) => a.priority - b.priority || a.order - b.order)
      .map((entry) => entry.record);
  const problems = ranked(
    records.filter((record) => !(record.status === 'completed' && record.success === true)),
  ).slice(0, limit);
  const passes = ranked(records.filter((record) => record.status === 'completed' && record.success === true)).slice(
    0,
    Math.max(0, limit - problems.length),
  );
  return [...problems, ...passes]
    .sort(
      (a, b) =>
        a.surface.localeCompare(b.surface) ||
        a.task.localeCompare(b.task) ||
        a.model.localeCompare(b.model) ||
        a.trial - b.trial,
    )
    .map((record) => `${record.model}/${record.surface}/${record.task}/${record.trial}`);
}

/** The outcome the page shows for a sampled trial. */
function outcomeOf(trial: SampleTrial): BrowserTrial['outcome'] {
  return (JSON.parse(Buffer.from(trial.bytes).toString('utf8')) as BrowserTrial).outcome;
}

describe('createTrialSample', () => {
  const records = fixtureTrials({
    trials: 40,
    models: [
      { provider: 'replay', model: 'a' },
      { provider: 'replay', model: 'b' },
    ],
  });

  it.each([0, 1, 7, 50, 400, 5_000])('keeps exactly the brute-force selection with limit %i', (limit) => {
    const sample = createTrialSample(limit);
    for (const record of records) sample.add(record);
    const { trials, total } = sample.finish();
    expect(total).toBe(records.length);
    expect(trials.map((trial) => `${trial.model}/${trial.surface}/${trial.task}/${trial.trial}`)).toEqual(
      bruteForce(records, limit),
    );
  });

  it('keeps each shown trial as the JSON text of toBrowserTrial of its record, with its place in the order', () => {
    const sample = createTrialSample(50);
    for (const record of records) sample.add(record);
    const byKey = new Map(
      records.map((record) => [`${record.model}/${record.surface}/${record.task}/${record.trial}`, record]),
    );
    const { trials } = sample.finish();
    expect(trials).toHaveLength(50);
    for (const trial of trials) {
      const record = byKey.get(`${trial.model}/${trial.surface}/${trial.task}/${trial.trial}`)!;
      expect(trial).toEqual({
        surface: record.surface,
        task: record.task,
        model: record.model,
        trial: record.trial,
        bytes: new TextEncoder().encode(jsonForScript(toBrowserTrial(record))),
      });
    }
  });

  it('does not depend on the order trials arrive in (a run finishes them in any order)', () => {
    const forward = createTrialSample(60);
    const backward = createTrialSample(60);
    for (const record of records) forward.add(record);
    for (const record of [...records].reverse()) backward.add(record);
    expect(backward.finish().trials).toEqual(forward.finish().trials);
  });

  // Limits past the fixture's problems, so that passes are shown too.
  const problems = records.filter((record) => !(record.status === 'completed' && record.success === true)).length;
  const work = mkdtempSync(path.join(os.tmpdir(), 'toolmark-sample-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each([problems + 1, problems + 30, 5_000])(
    'shows the same trials when fed each trial with the place of its line (limit %i: passes shown)',
    (limit) => {
      // The runner hands the sample where each trial's line is in trials.jsonl; a pass is kept
      // as that place and its line read back only if shown. What the page shows must not depend on which was kept.
      const runDir = mkdtempSync(path.join(work, 'run-'));
      const appender = new TrialAppender(runDir, { batchLines: 16 });
      const fromRecords = createTrialSample(limit);
      const fromPlaces = createTrialSample(limit);
      for (const record of records) {
        fromRecords.add(record);
        fromPlaces.add(record, appender.append(record));
      }
      appender.close();
      const asked: TrialLinePlace[][] = [];
      const shown = fromRecords.finish();
      expect(shown.trials.some((trial) => outcomeOf(trial) === 'pass')).toBe(true);
      expect(
        fromPlaces.finish((places) => {
          asked.push([...places]);
          return readTrialLinesAt(runDir, places);
        }),
      ).toEqual(shown);
      // Read once, only the passes shown.
      expect(asked).toHaveLength(1);
      expect(asked[0]).toHaveLength(shown.trials.filter((trial) => outcomeOf(trial) === 'pass').length);
    },
  );

  it('reads nothing back when no pass is shown', () => {
    const runDir = mkdtempSync(path.join(work, 'run-'));
    const appender = new TrialAppender(runDir);
    const sample = createTrialSample(problems);
    for (const record of records) sample.add(record, appender.append(record));
    appender.close();
    let reads = 0;
    const { trials } = sample.finish(() => {
      reads += 1;
      return [];
    });
    expect(trials.every((trial) => outcomeOf(trial) !== 'pass')).toBe(true);
    expect(reads).toBe(0);
  });
});
