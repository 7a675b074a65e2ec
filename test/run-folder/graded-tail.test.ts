import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  RUN_FILES,
  gradedText,
  parseTrialLine,
  parseUngradedTrialLine,
  readTrialLines,
  replaceTrials,
  trialLine,
} from '../../src/run-folder/index.ts';
import { ConfigError, type TrialRecord } from '../../src/spec/index.ts';
import { fixtureTrials } from '../report/fixture-run.ts';

const FILE = 'trials.jsonl';

/** The record with its keys in the runner's order: evidence, started_at, then the grade. */
function runnerOrder(record: TrialRecord): TrialRecord {
  const { verdicts, success, started_at, ...evidence } = record;
  return { ...evidence, started_at, verdicts, success } as TrialRecord;
}

const graded = fixtureTrials({ trials: 1 }).filter((record) => record.verdicts.length > 0);
const sample = runnerOrder({ ...graded[0]!, started_at: '2026-11-30T00:00:00.000Z' });
const ungradedOf = (record: TrialRecord) => ({ ...record, verdicts: [], success: null });

describe('trialLine', () => {
  it('writes the grade as the last two keys whatever order the record was built in, so a re-score can cut it', () => {
    const { verdicts, success, ...evidence } = sample;
    for (const record of [
      sample,
      { verdicts, success, ...evidence } as TrialRecord,
      { ...evidence, success, verdicts } as TrialRecord,
    ]) {
      const text = trialLine(record);
      expect(JSON.parse(text)).toEqual(sample);
      expect(text.endsWith(`,${gradedText(sample)}}`)).toBe(true);
      expect(parseUngradedTrialLine(text, FILE, 1)!.head).not.toBeNull();
    }
    expect(trialLine(sample)).toBe(JSON.stringify(sample));
  });
});

describe('parseUngradedTrialLine', () => {
  it("parses only the evidence of a line in the runner's key order, and splits it so head + grade is the line", () => {
    expect(graded.length).toBeGreaterThan(5);
    for (const record of graded.map(runnerOrder)) {
      const text = JSON.stringify(record);
      const result = parseUngradedTrialLine(text, FILE, 1)!;
      expect(result.head).not.toBeNull();
      expect(`${result.head},${result.graded}}`).toBe(text);
      expect(result.graded).toBe(gradedText(record));
      expect(result.record).toEqual(ungradedOf(record));
    }
  });

  it('parses an older line (started_at after success) whole, keeping started_at', () => {
    const { started_at, ...rest } = sample;
    const older = { ...rest, started_at } as TrialRecord;
    const text = JSON.stringify(older);
    expect(text.endsWith(`"started_at":"${started_at}"}`)).toBe(true);
    const result = parseUngradedTrialLine(text, FILE, 1)!;
    expect(result.head).toBeNull();
    expect(result.record.started_at).toBe(started_at);
    expect(result.record).toEqual(ungradedOf(sample));
    expect(result.graded).toBe(gradedText(sample));
  });

  it('falls back to a whole parse when the last `"verdicts":[` key is nested inside the grade', () => {
    // A tool argument named `verdicts` appears in the verdicts' expected arguments, after the top-level key.
    const nested = runnerOrder({
      ...sample,
      verdicts: [
        {
          grader: 'args',
          pass: true,
          expected: { tool: 'review', verdicts: ['a'] },
          actual: { count: 1, verdicts: [1] },
        },
        ...sample.verdicts,
      ],
    });
    const text = JSON.stringify(nested);
    expect(text.lastIndexOf(',"verdicts":[')).toBeGreaterThan(text.indexOf(',"verdicts":['));
    const result = parseUngradedTrialLine(text, FILE, 1)!;
    expect(result.head).toBeNull();
    expect(result.record).toEqual(ungradedOf(nested));
    expect(result.graded).toBe(gradedText(nested));
  });

  it('keeps the fast path when a nested `verdicts` key sits in the evidence, before the grade', () => {
    const withArgument = runnerOrder({ ...sample, final_state: { verdicts: ['kept'] } });
    const text = JSON.stringify(withArgument);
    const result = parseUngradedTrialLine(text, FILE, 1)!;
    expect(result.head).not.toBeNull();
    expect(result.record.final_state).toEqual({ verdicts: ['kept'] });
    expect(result.record).toEqual(ungradedOf(withArgument));
  });

  it('returns null for a blank line and a ConfigError naming file and line for a bad one', () => {
    expect(parseUngradedTrialLine('   ', FILE, 3)).toBeNull();
    const text = JSON.stringify(sample);
    expect(() => parseUngradedTrialLine(text.slice(0, 200), FILE, 4)).toThrow(ConfigError);
    const broken = text.replace('"trial":', '"trial":"x",');
    const error = (() => {
      try {
        parseUngradedTrialLine(broken, FILE, 5);
        return null;
      } catch (caught) {
        return caught as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain('trials.jsonl:5');
    // The fast path refuses what the whole-line reader refuses.
    expect(() => parseTrialLine(broken, FILE, 5)).toThrow(ConfigError);
  });
});

describe('readTrialLines and replaceTrials', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'toolmark-graded-tail-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('streams lines with their numbers, marks an unterminated last line, and replaces the file whole', async () => {
    const dir = path.join(work, 'run');
    mkdirSync(dir);
    const file = path.join(dir, RUN_FILES.trials);
    writeFileSync(file, 'one\n\ntwo\nthr');
    const seen = [];
    for await (const line of readTrialLines(dir)) seen.push(line);
    expect(seen).toEqual([
      { text: 'one', line: 1, complete: true },
      { text: '', line: 2, complete: true },
      { text: 'two', line: 3, complete: true },
      { text: 'thr', line: 4, complete: false },
    ]);

    async function* replacement() {
      yield 'a';
      yield 'b'.repeat(3 << 20); // more than one write batch
    }
    await replaceTrials(dir, replacement());
    expect(readFileSync(file, 'utf8')).toBe(`a\n${'b'.repeat(3 << 20)}\n`);

    // A failing source leaves the old file as it was, and no temporary file behind.
    async function* failing() {
      yield 'partial';
      throw new Error('source failed');
    }
    await expect(replaceTrials(dir, failing())).rejects.toThrow('source failed');
    expect(readFileSync(file, 'utf8')).toBe(`a\n${'b'.repeat(3 << 20)}\n`);
    expect((await import('node:fs')).readdirSync(dir)).toEqual([RUN_FILES.trials]);
  });
});
