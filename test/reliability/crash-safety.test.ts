/**
 * Issue 9 item 1 — crash safety. A replay run killed with SIGKILL at random
 * points (right after the N-th trial line lands, and once the run has moved
 * on to its summary and reports) never leaves a
 * trials.jsonl that cannot be read, a torn last line is detected and
 * dropped, and resuming ends with exactly the trials (and summary) of an
 * uninterrupted run. SIGINT lets in-flight trials finish, writes the summary
 * of what finished and says how to resume.
 *
 * Kill points are events (a line count, a file appearing, the n-th request
 * reaching the server), never a delay, so a slow machine changes how long the
 * test takes, not what it checks; the time limits only bound the process
 * starts (about 25 here), which take seconds each under load.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCassetteWriter, recordingProvider } from '../../providers/recording.ts';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import type { ScriptFunction } from '../../providers/scripted.ts';
import { loadProject } from '../../src/load/index.ts';
import { executeRun, planTrials } from '../../src/solve/index.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { TrialRecord } from '../../src/spec/index.ts';
import { startFakeServer, type FakeServer } from '../providers/fake-server.ts';
import { REPO_ROOT, completeLines, runCli } from '../helpers/cli.ts';
import { lineCounter } from '../helpers/line-counter.ts';

const PROJECT = path.join(REPO_ROOT, 'test/fixtures/project-basic');
// Enough trials that kills at a line count land while trials are still running (a replayed trial takes well under a millisecond).
const TRIALS = 40;
const KILLS = 20;
// The kills are dealt out to independent chains that run side by side (each a
// run killed and resumed in turn, as one chain did before): the same 20 kills
// and kinds of kill point, with the waits on process starts overlapped.
const CHAINS = 4;
const work = mkdtempSync(path.join(tmpdir(), 'toolmark-reliability-crash-'));
const cassette = path.join(work, 'cassette.jsonl');
const out = path.join(work, 'results');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A deterministic fake model for the cassette: per trial it makes 0–2 tool
 * calls (first tool on the surface, then the second), then answers. Usage
 * and latency vary by trial so scored content differs between trials.
 */
const script: ScriptFunction = (request, key) => {
  const { trial, turn } = key!;
  const calls = trial % 3;
  if (turn >= calls)
    return {
      ...textTurn(`N-1 says first (trial ${trial})`),
      usage: { input_tokens: 100 + trial, output_tokens: 7 },
      latency_ms: 10 + trial,
    };
  const tool = request.tools[turn % request.tools.length]!;
  const args = tool.name.endsWith('operation') ? { operation: 'get', payload: { note_id: 'N-1' } } : { note_id: 'N-1' };
  return {
    ...callTurn(tool.name, args, `c${turn}`),
    usage: { input_tokens: 90, output_tokens: 12 },
    latency_ms: 20 + turn,
  };
};

const base = [
  'run',
  '--root',
  PROJECT,
  '--provider',
  `replay:${cassette}`,
  '--trials',
  String(TRIALS),
  '--concurrency',
  '4',
  '--out',
  out,
];

/** Parse a trials.jsonl strictly: every newline-terminated line must be a valid record; returns them and the torn tail. */
function readStrict(file: string): { records: TrialRecord[]; torn: string } {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const parts = text.split('\n');
  const torn = parts.pop()!;
  const records = parts.map((line, index) => {
    const parsed = TrialRecord.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${file}:${index + 1}: not a trial record: ${parsed.error.message}`);
    return parsed.data;
  });
  return { records, torn };
}

/** Records keyed by identity, without wall-clock fields (start time, tool latency). */
function comparable(records: TrialRecord[]): Record<string, unknown> {
  const entries = records.map((record) => {
    const { started_at: _started, ...rest } = record;
    return [
      JSON.stringify([record.provider, record.model, record.domain, record.surface, record.task, record.trial]),
      { ...rest, calls: rest.calls.map((call) => ({ ...call, latency_ms: 0 })) },
    ] as const;
  });
  const keys = entries.map(([key]) => key);
  expect(new Set(keys).size, 'a trial appears twice').toBe(keys.length);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

function summaryWithoutId(runDir: string): unknown {
  const { run_id: _id, ...rest } = JSON.parse(readFileSync(path.join(runDir, RUN_FILES.summary), 'utf8'));
  return rest;
}

beforeAll(async () => {
  // Record a real cassette (real request hashes) through the real loop.
  const project = await loadProject(PROJECT);
  const provider = recordingProvider(
    new ScriptedProvider(script, { id: 'synthetic', model: 'crash-model' }),
    createCassetteWriter(cassette),
  );
  const recordDir = path.join(work, 'record');
  mkdirSync(recordDir);
  await executeRun({
    runDir: recordDir,
    plan: planTrials(project.domains, [provider], { split: 'all', trials: TRIALS }),
    concurrency: 4,
  });
}, 300_000);

/** What one chain of kills saw, for the totals the test asserts. */
interface ChainCounts {
  killed: number;
  killedMidRun: number;
  tornInjected: number;
  restartsBeforeManifest: number;
  completedRuns: number;
}

/**
 * One chain: start a run, SIGKILL it, resume it, kill it again, … until
 * `kills` kills have landed, then one more torn tail and an uninterrupted
 * resume, which must end with exactly the trials and summary of `reference`.
 * Chains share nothing but the cassette and the reference run, so several
 * run side by side (each under its own run ids, with its own seed).
 */
async function crashChain(chain: number, kills: number, reference: TrialRecord[], planned: number) {
  // Seeded LCG: the "random" kill points are the same on every run of the test.
  let seed = 9 + chain;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let runNumber = 1;
  const runId = () => `crashed-${chain}-${runNumber}`;
  const runDir = () => path.join(out, runId());
  const trialsFile = () => path.join(runDir(), RUN_FILES.trials);
  const counts: ChainCounts = {
    killed: 0,
    killedMidRun: 0,
    tornInjected: 0,
    restartsBeforeManifest: 0,
    completedRuns: 0,
  };
  for (let attempt = 0; counts.killed < kills && attempt < kills * 3; attempt += 1) {
    const started = existsSync(path.join(runDir(), RUN_FILES.manifest));
    if (!started && existsSync(runDir())) {
      // Killed between mkdir and the (atomic) manifest write: nothing ran; the only way on is a fresh start.
      counts.restartsBeforeManifest += 1;
      rmSync(runDir(), { recursive: true, force: true });
    }
    const args = started
      ? ['run', '--root', PROJECT, '--out', out, '--resume', runId()]
      : [...base, '--run-id', runId()];
    const before = completeLines(trialsFile());
    // Three kinds of kill point, in turn: right after the target-th line is on
    // disk (trials in flight); after the last trial line, once the summary or a
    // report is being written (aggregation, reports); after a random number of
    // lines counted from the resume point.
    const mode = attempt % 3;
    const target = mode === 2 ? before + 1 + Math.floor(random() * 5) : before + 1 + Math.floor(random() * 30);
    const file = trialsFile();
    const lines = lineCounter(file);
    const finishing = () =>
      [RUN_FILES.summary, 'report.md', 'junit.xml'].some((name) => existsSync(path.join(runDir(), name)));
    const result = await runCli(args, {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (mode === 1 ? finishing() : lines() >= target) child.kill('SIGKILL');
        }, 2);
        child.on('close', () => clearInterval(poll));
      },
      timeoutMs: 120_000,
    });
    const after = readStrict(file);
    comparable(after.records);
    if (result.signal !== 'SIGKILL') {
      // The run got to the end before the kill: it must equal the uninterrupted one. Then crash a new run.
      expect(result.code, result.stderr).toBe(0);
      expect(comparable(after.records)).toEqual(comparable(reference));
      counts.completedRuns += 1;
      runNumber += 1;
      continue;
    }
    counts.killed += 1;
    if (after.records.length > before && after.records.length < planned) counts.killedMidRun += 1;
    // Power loss mid-write: leave part of a line at the end; the next resume must drop it.
    if (counts.killed % 4 === 0 && after.records.length > 0 && after.torn === '') {
      const line = JSON.stringify(after.records.at(-1));
      appendFileSync(file, line.slice(0, Math.max(1, Math.floor(line.length * random()))));
      counts.tornInjected += 1;
    }
  }
  expect(counts.killed, `chain ${chain}`).toBe(kills);

  // One more torn tail, then the uninterrupted resume: it says it dropped exactly those bytes.
  if (!existsSync(path.join(runDir(), RUN_FILES.manifest))) {
    rmSync(runDir(), { recursive: true, force: true });
    const killedEarly = await runCli([...base, '--run-id', runId()], {
      onSpawn: (child) => {
        const lines = lineCounter(trialsFile());
        const poll = setInterval(() => lines() >= 3 && child.kill('SIGKILL'), 2);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(killedEarly.signal).toBe('SIGKILL');
  }
  const fragment = '{"v":1,"provider":"replay","model":"crash-mo';
  const tail = readStrict(trialsFile()).torn;
  appendFileSync(trialsFile(), fragment);
  const last = await runCli(['run', '--root', PROJECT, '--out', out, '--resume', runId()]);
  expect(last.code, last.stderr).toBe(0);
  expect(last.stdout).toContain(`dropped a torn last line (${Buffer.byteLength(tail + fragment)} bytes)`);
  const final = readStrict(trialsFile());
  expect(final.torn).toBe('');
  expect(comparable(final.records)).toEqual(comparable(reference));
  expect(summaryWithoutId(runDir())).toEqual(summaryWithoutId(path.join(out, 'reference')));
  expect(JSON.parse(readFileSync(path.join(runDir(), RUN_FILES.manifest), 'utf8')).finished_at).not.toBeNull();
  return counts;
}

describe('crash safety (SIGKILL)', () => {
  it(`${KILLS} SIGKILLs at random points (${CHAINS} chains side by side), then --resume: readable every time, exactly the trials of an uninterrupted run`, async () => {
    const whole = await runCli([...base, '--run-id', 'reference']);
    expect(whole.stderr).toBe('');
    expect(whole.code).toBe(0);
    const reference = readStrict(path.join(out, 'reference', RUN_FILES.trials));
    expect(reference.torn).toBe('');
    const planned = JSON.parse(readFileSync(path.join(out, 'reference', RUN_FILES.manifest), 'utf8')).planned as number;
    expect(reference.records).toHaveLength(planned);

    const chains = await Promise.all(
      Array.from({ length: CHAINS }, (_unused, chain) => crashChain(chain, KILLS / CHAINS, reference.records, planned)),
    );
    const total = (field: keyof ChainCounts) => chains.reduce((sum, counts) => sum + counts[field], 0);
    expect(total('killed')).toBe(KILLS);
    expect(total('killedMidRun')).toBeGreaterThanOrEqual(5);
    expect(total('tornInjected')).toBeGreaterThanOrEqual(2);
    // Reported for docs/reliability.md when run with --reporter verbose.
    console.info(
      `crash safety: ${total('killed')} kills (${total('killedMidRun')} mid-run), ${total('tornInjected') + CHAINS} torn tails, ${total('restartsBeforeManifest')} restarts before the manifest, ${total('completedRuns') + CHAINS} crashed runs completed`,
    );
  }, 1_200_000);
});

describe('crash safety (SIGINT)', () => {
  let server: FakeServer;
  afterAll(async () => server?.close());

  it('finishes the trials in flight, writes the summary of what finished, says how to resume', async () => {
    // Every request takes 300 ms, so several trials are in flight when Ctrl-C comes.
    // Ctrl-C comes from the server's side, the moment the 4th request arrives (an event, not a poll).
    let atInterrupt = -1;
    let interrupt: (() => void) | null = null;
    server = await startFakeServer((_request, index) => {
      if (index === 3 && atInterrupt === -1) {
        atInterrupt = index + 1;
        interrupt?.();
      }
      return {
        delayMs: 300,
        body: {
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'slow',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Nothing to do.' } }],
          usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
        },
      };
    });
    const args = [
      'run',
      '--root',
      PROJECT,
      '--provider',
      `openai-compatible:slow@${server.url}/v1`,
      '--surface',
      'typed',
      '--trials',
      '3',
      '--concurrency',
      '3',
      '--out',
      out,
    ];
    const runDir = path.join(out, 'sigint');
    const first = await runCli([...args, '--run-id', 'sigint'], {
      onSpawn: (child) => {
        interrupt = () => child.kill('SIGINT');
      },
      timeoutMs: 240_000,
    });
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('interrupted: finishing the trials in flight');
    expect(first.stdout).toContain(`toolmark run --resume`);
    const { records, torn } = readStrict(path.join(runDir, RUN_FILES.trials));
    expect(torn).toBe('');
    const planned = JSON.parse(readFileSync(path.join(runDir, RUN_FILES.manifest), 'utf8')).planned as number;
    // One request per trial (the model answers at once): every trial that had started was finished and written,
    // none was cut off as errored, and no new one started after Ctrl-C.
    expect(records.length).toBeGreaterThanOrEqual(atInterrupt);
    expect(records.length).toBe(server.requests.length);
    expect(records.length).toBeLessThan(planned);
    expect(records.every((record) => record.status === 'completed' && record.stop_reason === 'answered')).toBe(true);
    const summary = JSON.parse(readFileSync(path.join(runDir, RUN_FILES.summary), 'utf8'));
    const all = summary.groups.find(
      (group: { kind: string; split: string }) => group.kind === 'all' && group.split === 'all',
    );
    expect(all.trials).toBe(records.length);
    expect(first.stdout).toContain(`interrupted with ${planned - records.length} trials left`);

    const resumed = await runCli(['run', '--root', PROJECT, '--out', out, '--resume', 'sigint']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`${records.length} already done`);
    expect(readStrict(path.join(runDir, RUN_FILES.trials)).records).toHaveLength(planned);
  }, 600_000);
});
