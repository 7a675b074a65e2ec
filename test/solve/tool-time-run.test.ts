import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../src/spec/index.ts';
import { runCli } from '../helpers/cli.ts';

// `toolmark run --tool-time`: a replay of the shipped tickets domain (its
// slow lookup sleeps, and times out past 500 ms) on simulated and on real
// tool time gives the same trials — only each call's latency differs, and
// on simulated time it is the fixture's own latency, not a measurement.

const PROVIDER = 'replay:suites/tickets/cassettes/synthetic-hasty.jsonl';
const COMMON = ['run', '--domain', 'tickets', '--surface', 'typed-v2', '--provider', PROVIDER, '--trials', '1'];
let out: string;

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

function trials(runId: string): Map<string, TrialRecord> {
  const records = readFileSync(path.join(out, runId, 'trials.jsonl'), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as TrialRecord);
  return new Map(records.map((record) => [`${record.task}#${record.trial}`, record]));
}

/** A record without what may differ between two runs of the same trial: call latencies and the start time. */
function comparable(record: TrialRecord): unknown {
  const { started_at: _startedAt, ...rest } = record;
  return { ...rest, calls: record.calls.map(({ latency_ms: _latency, ...call }) => call) };
}

beforeAll(async () => {
  out = mkdtempSync(path.join(os.tmpdir(), 'toolmark-tool-time-'));
  for (const [runId, extra] of [['simulated', []], ['real', ['--tool-time', 'real']]] as const) {
    const result = await runCli([...COMMON, ...extra, '--out', out, '--run-id', runId], { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }
}, 180_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('toolmark run --tool-time', () => {
  it('defaults to simulated time for an offline run and stores the resolved choice for a resume', () => {
    const selection = (run: string) => (readJson(path.join(out, run, 'manifest.json')).config as { selection: { tool_time: string } }).selection.tool_time;
    expect(selection('simulated')).toBe('simulated');
    expect(selection('real')).toBe('real');
  });

  it('gives the same trials and the same summary as real time; only call latencies differ', () => {
    const simulated = trials('simulated');
    const real = trials('real');
    expect(simulated.size).toBeGreaterThan(20);
    expect([...simulated.keys()].sort()).toEqual([...real.keys()].sort());
    for (const [key, record] of simulated) expect(comparable(record), key).toEqual(comparable(real.get(key)!));
    const summary = (run: string) => ({ ...readJson(path.join(out, run, 'summary.json')), run_id: null });
    expect(summary('simulated')).toEqual(summary('real'));
  });

  it('records the fixture\'s simulated latency on each call: the slow lookup\'s 50 ms default and the 500 ms timeout', () => {
    const calls = [...trials('simulated').values()].flatMap((record) => record.calls.map((call) => ({ call, tool: call.routing.kind === 'resolved' ? call.routing.tool : null })));
    const slow = calls.filter(({ tool }) => tool === 'ticket.lookup_slow');
    expect(slow.length).toBeGreaterThan(0);
    for (const { call } of slow) {
      const timedOut = !call.outcome.ok && call.outcome.error.code === 'tool_timeout';
      if (timedOut) expect(call.latency_ms).toBe(500);
      else if (call.outcome.ok) expect(call.latency_ms).toBeGreaterThanOrEqual(0);
    }
    expect(slow.some(({ call }) => call.latency_ms === 50)).toBe(true);
    // Tools that never sleep take no simulated time.
    expect(calls.filter(({ tool }) => tool === 'ticket.get').every(({ call }) => call.latency_ms === 0)).toBe(true);
  });

  it('refuses an unknown mode before doing anything (exit 2)', async () => {
    const result = await runCli([...COMMON, '--tool-time', 'fast', '--out', out, '--run-id', 'bad']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown tool time "fast"');
    expect(result.stderr).toContain('auto, real or simulated');
  });
});
