import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_FILES, readTrials } from '../../src/solve/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';

// SPEC §3 / issue 9: a run killed with SIGKILL at arbitrary points never
// leaves a trials.jsonl that --resume cannot read, and resuming ends with
// exactly the trials of an uninterrupted run.
const root = path.resolve(import.meta.dirname, '../..');
const out = mkdtempSync(path.join(tmpdir(), 'toolmark-crash-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const selection = ['--domain', 'tickets', '--provider', 'scripted', '--trials', '2', '--concurrency', '4', '--out', out];

/** Run the CLI; kill it `killAfterMs` after `startFile` exists (after spawn when none is given). */
function run(args: string[], killAfterMs: number | null, startFile?: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/toolmark.js'), 'run', '--root', root, ...args], { cwd: root, stdio: 'ignore' });
    let timer: NodeJS.Timeout | null = null;
    const arm = () => (timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs!));
    const poll = killAfterMs !== null && startFile ? setInterval(() => existsSync(startFile) && (clearInterval(poll!), arm()), 5) : null;
    if (killAfterMs !== null && !startFile) arm();
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      resolve(code);
    });
  });
}

async function trials(runDir: string): Promise<Record<string, unknown>> {
  const list: [string, unknown][] = [];
  for await (const record of readTrials(path.join(runDir, RUN_FILES.trials))) {
    const { started_at: _started, ...rest } = record as TrialRecord;
    const identity = `${record.surface}/${record.task}/${record.trial}`;
    expect(list.some(([seen]) => seen === identity), `duplicate trial ${identity}`).toBe(false);
    list.push([identity, { ...rest, calls: rest.calls.map((call) => ({ ...call, latency_ms: 0 })) }]);
  }
  return Object.fromEntries(list.sort(([a], [b]) => a.localeCompare(b)));
}

describe('crash safety', () => {
  it('20 SIGKILLs at arbitrary points, then --resume: exactly the trials of an uninterrupted run', async () => {
    expect(await run([...selection, '--run-id', 'reference'], null)).toBe(0);
    const reference = await trials(path.join(out, 'reference'));

    // Deterministic "random" kill times (a small LCG), spread over start-up, trials and the reports.
    let seed = 12345;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const crashed = path.join(out, 'crashed');
    let killed = 0;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const manifest = path.join(crashed, RUN_FILES.manifest);
      const started = existsSync(manifest);
      // Killed between creating the folder and writing the manifest: nothing ran yet, start again.
      if (!started) rmSync(crashed, { recursive: true, force: true });
      const delay = Math.floor(next() * 1500);
      // The first run is killed only once its manifest exists (a slow machine could otherwise never
      // get that far); resumes are killed anywhere, start-up included.
      const code = started ? await run(['--out', out, '--resume', 'crashed'], 300 + delay) : await run([...selection, '--run-id', 'crashed'], delay, manifest);
      if (code === null) killed += 1;
      // Whatever was killed, the trials written so far are readable.
      if (existsSync(path.join(crashed, RUN_FILES.trials))) await trials(crashed);
    }
    expect(killed).toBeGreaterThan(10);
    expect(await run(['--out', out, '--resume', 'crashed'], null)).toBe(0);
    expect(await trials(crashed)).toEqual(reference);
  }, 240_000);
});
