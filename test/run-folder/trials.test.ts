import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  RUN_FILES,
  TrialAppender,
  checkRunId,
  createRunId,
  readTrialLinesAt,
  readTrials,
  repairTrials,
  trialLine,
} from '../../src/run-folder/index.ts';
import { ConfigError, TrialRecord } from '../../src/spec/index.ts';
import { fixtureTrials } from '../report/fixture-run.ts';

const work = mkdtempSync(path.join(tmpdir(), 'toolmark-run-folder-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let folders = 0;

/** A run folder whose trials.jsonl holds exactly `text`. */
function runWith(text: string): string {
  const dir = path.join(work, `run-${(folders += 1)}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, RUN_FILES.trials), text);
  return dir;
}

async function read(dir: string, options?: { allowMissing?: boolean }): Promise<TrialRecord[]> {
  const records: TrialRecord[] = [];
  for await (const record of readTrials(dir, options)) records.push(record);
  return records;
}

async function readError(dir: string): Promise<ConfigError> {
  const error = await read(dir).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

const records = fixtureTrials({ trials: 2 });
const lines = records.map((record) => JSON.stringify(record));

describe('readTrials', () => {
  it('streams every record back, equal to what was written, skipping blank lines', async () => {
    const dir = runWith(`${lines.slice(0, 10).join('\n')}\n\n   \n${lines.slice(10).join('\n')}\n`);
    expect(await read(dir)).toEqual(records);
  });

  it('drops a torn last line and keeps a whole record whose newline was never written', async () => {
    expect(await read(runWith(`${lines[0]}\n${lines[1]}\n${lines[2]!.slice(0, 200)}`))).toEqual(records.slice(0, 2));
    expect(await read(runWith(`${lines[0]}\n${lines[1]}`))).toEqual(records.slice(0, 2));
    expect(await read(runWith(`${lines[0]}\n{"v":1}`))).toEqual(records.slice(0, 1));
  });

  it('a bad line anywhere else is a ConfigError naming file and line', async () => {
    const notJson = await readError(runWith(`${lines[0]}\n{not json\n${lines[1]}\n`));
    expect(notJson.issues[0]).toMatchObject({ line: 2 });
    expect(notJson.message).toMatch(/trials\.jsonl:2: not JSON/);
    // A terminated last line is not torn: it must be a record too.
    const invalid = await readError(runWith(`${lines[0]}\n${lines[1]}\n{"v":1,"provider":"replay"}\n`));
    expect(invalid.issues[0]).toMatchObject({ line: 3, field: 'model' });
    expect(invalid.message).toMatch(/trials\.jsonl:3: model: invalid TrialRecord/);
  });

  it('fills the defaults of an older record that leaves them out, like the zod schema', async () => {
    const {
      verdicts: _verdicts,
      success: _success,
      error: _error,
      final_state: _state,
      ...older
    } = records.find((record) => record.calls.length > 0)!;
    const calls = older.calls.map(({ fault: _fault, approved: _approved, latency_ms: _latency, ...call }) => call);
    const [read1] = await read(runWith(`${JSON.stringify({ ...older, calls })}\n`));
    expect(read1).toEqual(TrialRecord.parse({ ...older, calls }));
    expect(read1).toMatchObject({ verdicts: [], success: null, error: null, final_state: {} });
    expect(read1!.calls[0]).toMatchObject({ fault: null, approved: false, latency_ms: 0 });
  });

  it('reads lines longer than its buffer and multi-byte characters split across reads', async () => {
    // Another trial number: a second line with the identity of the first would be refused as a duplicate.
    const long = { ...records[0]!, trial: 99, final_text: `${'é🙂x'.repeat(700_000)}` };
    const dir = runWith(`${lines[0]}\n${JSON.stringify(long)}\n${lines[1]}\n`);
    const read3 = await read(dir);
    expect(read3.map((record) => record.final_text)).toEqual([
      records[0]!.final_text,
      long.final_text,
      records[1]!.final_text,
    ]);
  });

  it('a missing trials.jsonl is a ConfigError, or no records when allowed', async () => {
    const dir = path.join(work, 'no-trials');
    mkdirSync(dir);
    await expect(read(dir)).rejects.toThrow(/no trials\.jsonl/);
    expect(await read(dir, { allowMissing: true })).toEqual([]);
  });
});

describe('TrialAppender and repairTrials', () => {
  it('appends one line per record that reads back equal (non-ASCII included)', async () => {
    const dir = runWith('');
    const appender = new TrialAppender(dir);
    const written = [records[0]!, { ...records[1]!, final_text: 'Status: “open” — ✓ 票' }];
    for (const record of written) appender.append(record);
    appender.close();
    expect(readFileSync(path.join(dir, RUN_FILES.trials), 'utf8').split('\n')).toHaveLength(3);
    expect(await read(dir)).toEqual(written);
  });

  it('append returns where each line is: read back at those places, they are the lines (after earlier lines, non-ASCII, a huge one)', () => {
    const earlier = `${trialLine(records[0]!)}\n`;
    const dir = runWith(earlier);
    const huge = { ...records[1]!, trial: 7, final_text: `${'€ — 票 '.repeat(60_000)}end` };
    const written = [records[1]!, { ...records[0]!, final_text: 'Status: “open” — ✓ 票' }, huge, records[0]!];
    const appender = new TrialAppender(dir, { batchLines: 3 });
    const places = written.map((record) => appender.append(record));
    appender.close();
    expect(places[0]!.at).toBe(Buffer.byteLength(earlier));
    expect(readTrialLinesAt(dir, [places[3]!, ...places])).toEqual(
      [written[3]!, ...written].map((record) => trialLine(record)),
    );
    expect(() => readTrialLinesAt(dir, [{ at: places[3]!.at, bytes: places[3]!.bytes + 10 }])).toThrow(/shorter/);
  });

  it('batched: a line larger than the batch buffer, and lines after it, are written whole', async () => {
    const dir = runWith('');
    const appender = new TrialAppender(dir, { batchLines: 64 });
    const huge = (trial: number) => ({ ...records[1]!, trial, final_text: `${'€ — 票 '.repeat(60_000)}end` });
    const written = [records[0]!, huge(10), records[1]!, huge(11), { ...records[0]!, trial: 12 }];
    for (const record of written) appender.append(record);
    appender.close();
    expect(appender.written).toBe(5);
    expect(await read(dir)).toEqual(written);
  });

  it('batched: lines reach the file at n lines or at the next turn of the event loop; close writes the rest', async () => {
    const dir = runWith('');
    const file = path.join(dir, RUN_FILES.trials);
    const writes: number[] = [];
    const appender = new TrialAppender(dir, {
      batchLines: 3,
      write: (fd, text, offset) => {
        writes.push(String(text).split('\n').length - 1);
        return typeof text === 'string' ? writeSync(fd, text) : writeSync(fd, text, offset);
      },
    });
    const lines = () => readFileSync(file, 'utf8').split('\n').length - 1;
    const trial = (number: number) => ({ ...records[0]!, trial: number });
    appender.append(trial(0));
    appender.append(trial(1));
    expect(lines()).toBe(0);
    expect(appender.written).toBe(0);
    appender.append(trial(2));
    expect(lines()).toBe(3);
    appender.append(trial(3));
    expect(lines()).toBe(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines()).toBe(4);
    appender.append(trial(4));
    appender.close();
    expect(writes).toEqual([3, 1, 1]);
    expect(appender.written).toBe(5);
    expect((await read(dir)).map((record) => record.trial)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a batch that fails at the next turn goes to onFailure, nothing more is written, trim cuts the torn line', async () => {
    const dir = runWith('');
    const file = path.join(dir, RUN_FILES.trials);
    let calls = 0;
    const failures: unknown[] = [];
    const appender = new TrialAppender(dir, {
      batchLines: 10,
      onFailure: (error) => failures.push(error),
      write: (fd, text) => {
        calls += 1;
        if (calls === 1) return writeSync(fd, String(text));
        // A filling disk: part of the batch, then ENOSPC.
        writeSync(fd, String(text).slice(0, 50));
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    });
    appender.append(records[0]!);
    await new Promise((resolve) => setImmediate(resolve));
    appender.append(records[1]!);
    appender.append(records[0]!);
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/ENOSPC/);
    expect(appender.written).toBe(1);
    expect(() => appender.append(records[1]!)).toThrow(/append after a failed write/);
    appender.close();
    expect(calls).toBe(2);
    expect(appender.trim()).toBe(50);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
    expect(await read(dir)).toEqual([records[0]]);
  });

  it('repairTrials drops only bytes after the last newline', () => {
    const dir = runWith('{"a":1}\n{"b":2}\n{"c":');
    const file = path.join(dir, RUN_FILES.trials);
    expect(repairTrials(dir)).toBe(5);
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    expect(repairTrials(dir)).toBe(0);
    writeFileSync(file, 'torn');
    expect(repairTrials(dir)).toBe(4);
    expect(readFileSync(file, 'utf8')).toBe('');
    appendFileSync(file, `${'x'.repeat(100_000)}\n${'y'.repeat(70_000)}`);
    expect(repairTrials(dir)).toBe(70_000);
    expect(repairTrials(path.join(work, 'never-ran'))).toBe(0);
  });
});

describe('run ids', () => {
  it('sort by time and are file-name safe', () => {
    expect(createRunId(new Date('2026-11-29T22:40:00.123Z'), () => 'ab12')).toBe('2026-11-29T22-40-00Z-ab12');
    expect(checkRunId('nightly-2026.11')).toBe('nightly-2026.11');
    for (const bad of ['../escape', 'a/b', '..', '']) expect(() => checkRunId(bad)).toThrow(/not a run id/);
  });
});
