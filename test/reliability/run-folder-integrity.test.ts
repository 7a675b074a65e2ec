/**
 * Issue 17 items 1–6 — nothing lost, nothing counted twice, in the run folder.
 *
 * Faults are injected at exact points, never by timing: a preload
 * (fault-preload.mjs) makes a real `toolmark` process fail an append with
 * ENOSPC after N lines, or SIGKILL itself just before its K-th rename; the
 * other states a crash or a second writer leaves (a live or stale lock, a
 * duplicated or foreign line, staged files with or without a journal) are
 * made by hand, and the library (or the CLI) must refuse or repair them.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeRuns, resumeRun, runProject } from '../../src/run/index.ts';
import {
  LOCK_FILE,
  PENDING_FILE,
  RUN_FILES,
  RunFolderTransaction,
  checkRunFiles,
  lockRunFolder,
  readTrials,
  repairRunFolder,
} from '../../src/run-folder/index.ts';
import { startFakeServer, type FakeServer } from '../providers/fake-server.ts';
import { REPO_ROOT, completeLines, runCli } from '../helpers/cli.ts';

const PROJECT = path.join(REPO_ROOT, 'test/fixtures/project-basic');
const PRELOAD = pathToFileURL(path.join(import.meta.dirname, 'fault-preload.mjs')).href;
const work = mkdtempSync(path.join(tmpdir(), 'toolmark-reliability-folder-'));
const out = path.join(work, 'results');
let server: FakeServer;
const answer = {
  id: 'x',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Nothing to do.' } }],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
};
const provider = () => `openai-compatible:m@${server.url}/v1`;
const runArgs = (id: string, trials = 2) => [
  'run',
  '--root',
  PROJECT,
  '--provider',
  provider(),
  '--surface',
  'typed',
  '--trials',
  String(trials),
  '--concurrency',
  '4',
  '--out',
  out,
  '--run-id',
  id,
];
const trialsOf = (dir: string) => readFileSync(path.join(dir, RUN_FILES.trials), 'utf8');
const planned = (dir: string) => JSON.parse(readFileSync(path.join(dir, RUN_FILES.manifest), 'utf8')).planned as number;

beforeAll(async () => {
  // The model answers at once, one request per trial: requests received = trials that called the model.
  server = await startFakeServer(() => ({ body: answer }));
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A finished run made in-process (no model: the fake server), for the tests that damage it by hand. */
async function finishedRun(id: string, trials = 2): Promise<string> {
  const result = await runProject({
    root: PROJECT,
    out,
    runId: id,
    selection: { providers: [provider()], surfaces: ['typed'], trials },
  });
  return result.runDir;
}

describe('1. disk full', () => {
  it('stops calling the model at the first failed write, trims to the last whole line, exit 2 with one message; resume completes', async () => {
    const before = server.requests.length;
    const result = await runCli(runArgs('full', 6), {
      env: { NODE_OPTIONS: `--import=${PRELOAD}`, TOOLMARK_TEST_ENOSPC_AFTER_LINES: '5' },
      timeoutMs: 240_000,
    });
    const runDir = path.join(out, 'full');
    const requests = server.requests.length - before;
    expect(result.code, result.stderr).toBe(2);
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(errors[0]).toMatch(/trials\.jsonl: cannot write trials: ENOSPC \(no space left on the device\)/);
    expect(errors[0]).toMatch(/5 trials kept \(a partial last line of \d+ bytes cut\)/);
    expect(errors[0]).toContain(`toolmark run --resume ${runDir}`);
    // Trimmed: 5 whole lines, nothing after the last newline.
    expect(trialsOf(runDir).endsWith('\n')).toBe(true);
    expect(completeLines(path.join(runDir, RUN_FILES.trials))).toBe(5);
    // 5 saved + the one that failed + at most the 3 others in flight (concurrency 4); without the stop, every planned trial.
    expect(requests).toBeLessThanOrEqual(5 + 4);
    expect(planned(runDir)).toBeGreaterThan(5 + 4 + 10);
    expect(existsSync(path.join(runDir, LOCK_FILE))).toBe(false);

    const resumed = await runCli(['run', '--root', PROJECT, '--out', out, '--resume', 'full'], { timeoutMs: 240_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('5 already done');
    const records = [];
    for await (const record of readTrials(runDir)) records.push(record);
    expect(records).toHaveLength(planned(runDir));
  }, 600_000);
});

describe('2. one owner per run folder', () => {
  it('a second writer is refused while the lock is live; a stale lock is taken over with a note', async () => {
    const runDir = await finishedRun('locked');
    const held = lockRunFolder(runDir, 'run');
    // The same process counts as alive: the second writer is refused, naming the owner and how to clear it.
    await expect(resumeRun({ root: PROJECT, out, run: 'locked' })).rejects.toThrow(
      new RegExp(`run\\.lock: the run folder is in use by \`toolmark run\` \\(pid ${process.pid} on `),
    );
    await expect(resumeRun({ root: PROJECT, out, run: 'locked' })).rejects.toThrow(/delete .*run\.lock/);
    held.release();
    expect(existsSync(path.join(runDir, LOCK_FILE))).toBe(false);

    // A lock of a pid that cannot exist on this host (above Linux's pid_max): a crashed owner.
    const stale = { pid: 2 ** 22 + 17, host: hostname(), started_at: '2026-01-01T00:00:00Z', command: 'run' };
    writeFileSync(path.join(runDir, LOCK_FILE), JSON.stringify(stale));
    const notes: string[] = [];
    await resumeRun({ root: PROJECT, out, run: 'locked', events: { onNote: (note) => notes.push(note) } });
    expect(notes).toEqual([
      `${path.join(runDir, LOCK_FILE)}: took over a stale lock of \`toolmark run\` (pid ${stale.pid}, started ${stale.started_at}), which is no longer running`,
    ]);
    expect(existsSync(path.join(runDir, LOCK_FILE))).toBe(false);

    // Another host's lock cannot be checked from here: refused.
    writeFileSync(path.join(runDir, LOCK_FILE), JSON.stringify({ ...stale, host: 'elsewhere' }));
    await expect(resumeRun({ root: PROJECT, out, run: 'locked' })).rejects.toThrow(/in use by .* on elsewhere/);
    rmSync(path.join(runDir, LOCK_FILE));
  }, 240_000);

  it('two runs with one --run-id: the second is refused before it writes', async () => {
    const runDir = path.join(out, 'twice');
    mkdirSync(runDir, { recursive: true });
    // The folder appears between the second run's first check and its creation (a race lost).
    await expect(
      runProject({ root: PROJECT, out, runId: 'twice', selection: { providers: [provider()], surfaces: ['typed'] } }),
    ).rejects.toThrow(/a run with this id already exists/);
    expect(readdirSync(runDir)).toEqual([]);
  });

  it('readers refuse duplicate trial keys, naming both lines (compare, gate, report, resume)', async () => {
    const runDir = await finishedRun('dup');
    const first = trialsOf(runDir).split('\n')[0]!;
    appendFileSync(path.join(runDir, RUN_FILES.trials), `${first}\n`);
    const line = completeLines(path.join(runDir, RUN_FILES.trials));
    const message = new RegExp(`trials\\.jsonl:${line}: duplicate trial: .* is already on line 1`);
    await expect(resumeRun({ root: PROJECT, out, run: 'dup' })).rejects.toThrow(message);
    const { main } = await import('../../src/cli/main.ts');
    for (const argv of [
      ['compare', '--root', PROJECT, `${runDir}:typed`, `${runDir}:typed`],
      ['gate', '--root', PROJECT, runDir, '--baseline', runDir],
      ['report', '--root', PROJECT, runDir],
    ]) {
      const stderr: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
      let code: number;
      try {
        code = await main(argv);
      } finally {
        process.stderr.write = write;
      }
      expect(code, `${argv[0]}: ${stderr.join('')}`).toBe(2);
      expect(stderr.join(''), argv[0]).toMatch(message);
    }
  }, 240_000);
});

describe('3. --resume checks every line against the plan', () => {
  it('a line of another model, an unknown task or an unknown trial number is refused with its line number', async () => {
    const runDir = await finishedRun('foreign');
    const lines = trialsOf(runDir).trimEnd().split('\n');
    const record = JSON.parse(lines[0]!);
    const foreign = [
      { ...record, model: 'other-model' },
      { ...record, task: 'not-a-task', trial: 0 },
      { ...record, trial: 7 },
    ];
    // An interrupted run: its last trials are missing, and three foreign lines came in.
    writeFileSync(
      path.join(runDir, RUN_FILES.trials),
      `${[...lines.slice(1), ...foreign.map((value) => JSON.stringify(value))].join('\n')}\n`,
    );
    const base = lines.length - 1;
    const before = server.requests.length;
    const error = await resumeRun({ root: PROJECT, out, run: 'foreign' }).catch((caught: Error) => caught);
    expect(String(error)).toContain(
      `trials.jsonl:${base + 1}: model openai-compatible:other-model is not one of this run's`,
    );
    expect(String(error)).toContain(`trials.jsonl:${base + 2}: task notes/not-a-task is not in this run's plan`);
    expect(String(error)).toContain(`trials.jsonl:${base + 3}: trial 7 of`);
    // Refused before any model call.
    expect(server.requests.length).toBe(before);
  }, 240_000);
});

describe('4. merge', () => {
  it('an unfinished shard is refused unless --allow-partial, then marked partial everywhere; a merge cannot be resumed', async () => {
    const shard1 = await finishedRun('shard-1', 1);
    const shard2 = await finishedRun('shard-2', 1);
    // Shard 2 as if killed early: 2 trials kept, no finished_at.
    const manifest = JSON.parse(readFileSync(path.join(shard2, RUN_FILES.manifest), 'utf8'));
    writeFileSync(
      path.join(shard2, RUN_FILES.manifest),
      JSON.stringify({ ...manifest, run_id: 'shard-2', finished_at: null }),
    );
    writeFileSync(path.join(shard2, RUN_FILES.trials), `${trialsOf(shard2).split('\n').slice(0, 2).join('\n')}\n`);

    await expect(mergeRuns({ runs: [shard1, shard2], out, runId: 'merged-refused' })).rejects.toThrow(
      /run shard-2 did not finish, so the merge would be partial .*--allow-partial/,
    );
    expect(existsSync(path.join(out, 'merged-refused'))).toBe(false);

    const merged = await mergeRuns({ runs: [shard1, shard2], out, runId: 'merged', allowPartial: true });
    expect(merged.partial).toEqual([{ run_id: 'shard-2', trials: 2, planned: manifest.planned }]);
    const mergedDir = path.join(out, 'merged');
    expect(JSON.parse(readFileSync(path.join(mergedDir, RUN_FILES.manifest), 'utf8')).partial).toEqual(merged.partial);
    for (const name of ['report.md', 'report.html', 'junit.xml'])
      expect(readFileSync(path.join(mergedDir, name), 'utf8'), name).toContain(
        `PARTIAL merge: ${merged.trials} of ${planned(shard1) + manifest.planned} planned trials; unfinished shard shard-2 (2 of ${manifest.planned})`,
      );

    await expect(resumeRun({ root: PROJECT, out, run: 'merged' })).rejects.toThrow(
      /this run was made by `toolmark merge` from shard-1, shard-2, so it cannot be resumed as a run/,
    );
  }, 240_000);
});

describe('5. reports are written whole', () => {
  it('SIGKILL before each rename of the finish: every report is absent or whole; resume or report completes the folder', async () => {
    // Renames of a new run: 1 the first manifest, 2 the journal, 3 summary, 4 manifest, 5 report.md, 6 report.html, 7 junit.xml.
    // Three runs, independent of each other (own run ids), killed and completed side by side.
    await Promise.all(
      [2, 3, 6].map(async (rename) => {
        const id = `killed-at-${rename}`;
        const runDir = path.join(out, id);
        const killed = await runCli(runArgs(id, 1), {
          env: { NODE_OPTIONS: `--import=${PRELOAD}`, TOOLMARK_TEST_KILL_AT_RENAME: String(rename) },
          timeoutMs: 240_000,
        });
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
        const torn = checkRunFiles(runDir).filter((problem) => problem.problem === 'torn');
        expect(torn, `kill at rename ${rename}`).toEqual([]);
        // Before the journal: nothing of the finish installed. After it: the next open completes it.
        const installed = ['summary.json', 'report.md', 'report.html', 'junit.xml'].filter((name) =>
          existsSync(path.join(runDir, name)),
        );
        expect(installed, `kill at rename ${rename}`).toEqual(
          rename <= 2 ? [] : rename === 3 ? [] : ['summary.json', 'report.md'],
        );
        const next = await runCli(['run', '--root', PROJECT, '--out', out, '--resume', id], { timeoutMs: 240_000 });
        expect(next.code, next.stderr).toBe(0);
        expect(next.stderr).toMatch(
          rename === 2
            ? /note: .*took over a stale lock.*\nnote: .*removed \d+ temporary files of an interrupted write .*the interrupted change was not applied/s
            : /note: .*completed an interrupted end of a run \(summary, manifest, reports\) \(installed /,
        );
        expect(checkRunFiles(runDir)).toEqual([]);
        expect(readdirSync(runDir).filter((name) => name.endsWith('.tmp') || name === PENDING_FILE)).toEqual([]);
      }),
    );
  }, 900_000);
});

describe('6. re-score is installed all at once', () => {
  it('staged files without a journal are rolled back; a journal is completed; each says what it repaired', async () => {
    const runDir = await finishedRun('rescored');
    const old = Object.fromEntries(
      [RUN_FILES.trials, RUN_FILES.summary, RUN_FILES.manifest].map((name) => [
        name,
        readFileSync(path.join(runDir, name), 'utf8'),
      ]),
    );
    const stage = (what: string) => {
      const transaction = new RunFolderTransaction(runDir, what);
      for (const name of Object.keys(old)) transaction.write(path.join(runDir, name), `new ${name}\n`);
      return transaction;
    };
    // Killed before the commit point: the old files stay, the staged ones are removed.
    stage('re-score');
    expect(repairRunFolder(runDir)).toEqual([
      `${runDir}: removed 3 temporary files of an interrupted write (manifest.json.staged.tmp, summary.json.staged.tmp, trials.jsonl.staged.tmp); the interrupted change was not applied, the files are as they were before it`,
    ]);
    for (const [name, text] of Object.entries(old)) expect(readFileSync(path.join(runDir, name), 'utf8')).toBe(text);

    // Killed after the journal, with one file renamed: the rest is installed on the next open.
    stage('re-score');
    const journal = {
      v: 1,
      what: 're-score',
      files: Object.keys(old).map((name) => ({ from: `${name}.staged.tmp`, to: name })),
    };
    writeFileSync(path.join(runDir, PENDING_FILE), JSON.stringify(journal));
    cpSync(path.join(runDir, `${RUN_FILES.trials}.staged.tmp`), path.join(runDir, RUN_FILES.trials));
    rmSync(path.join(runDir, `${RUN_FILES.trials}.staged.tmp`));
    expect(repairRunFolder(runDir)).toEqual([
      `${runDir}: completed an interrupted re-score (installed summary.json, manifest.json)`,
    ]);
    for (const name of Object.keys(old)) expect(readFileSync(path.join(runDir, name), 'utf8')).toBe(`new ${name}\n`);
    expect(existsSync(path.join(runDir, PENDING_FILE))).toBe(false);
  }, 240_000);
});
