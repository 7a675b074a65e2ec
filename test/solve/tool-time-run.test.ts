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
  const records = readFileSync(path.join(out, runId, 'trials.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as TrialRecord);
  return new Map(records.map((record) => [`${record.task}#${record.trial}`, record]));
}

/** A record without what may differ between two runs of the same trial: call latencies and the start time. */
function comparable(record: TrialRecord): unknown {
  const { started_at: _startedAt, ...rest } = record;
  return { ...rest, calls: record.calls.map(({ latency_ms: _latency, ...call }) => call) };
}

beforeAll(async () => {
  out = mkdtempSync(path.join(os.tmpdir(), 'toolmark-tool-time-'));
  for (const [runId, extra] of [
    ['simulated', []],
    ['real', ['--tool-time', 'real']],
  ] as const) {
    const result = await runCli([...COMMON, ...extra, '--out', out, '--run-id', runId], { timeoutMs: 300_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }
}, 600_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('toolmark run --tool-time', () => {
  it('defaults to simulated time for an offline run and stores the resolved choice for a resume', () => {
    const selection = (run: string) =>
      (readJson(path.join(out, run, 'manifest.json')).config as { selection: { tool_time: string } }).selection
        .tool_time;
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

  it("records each call's simulated latency: what the fixture slept, never a measurement", () => {
    const calls = [...trials('simulated').values()].flatMap((record) => record.calls);
    const toolOf = (call: TrialRecord['calls'][number]) =>
      call.routing.kind === 'resolved' ? call.routing.tool : null;
    const slow = calls.filter((call) => toolOf(call) === 'ticket.lookup_slow');
    expect(slow.length).toBeGreaterThan(0);
    // The slow lookup sleeps `simulated_latency_ms`, 50 ms by default (suites/tickets/narrow-tools.ts).
    for (const call of slow) {
      const asked =
        call.routing.kind === 'resolved'
          ? (call.routing.args as { simulated_latency_ms?: number }).simulated_latency_ms
          : undefined;
      expect(call.latency_ms).toBe(asked ?? 50);
    }
    expect(slow.some((call) => call.latency_ms !== 50)).toBe(true);
    // Tools that never sleep take no simulated time. (Timeouts on simulated time: test/registry/tool-time.test.ts.)
    expect(calls.filter((call) => toolOf(call) === 'ticket.get').every((call) => call.latency_ms === 0)).toBe(true);
  });

  it('refuses an unknown mode before doing anything (exit 2)', async () => {
    const result = await runCli([...COMMON, '--tool-time', 'fast', '--out', out, '--run-id', 'bad']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown tool time "fast"');
    expect(result.stderr).toContain('auto, real or simulated');
  });
});
