/**
 * Issue 17 item 10, the last gaps — user code that blocks the run with
 * nobody at the keyboard, and a Ctrl-C sent to the process alone:
 * - (a) a tool handler in a synchronous loop, an async handler looping after
 *   an `await`, a user zod schema with a catastrophic regex: past
 *   `run.user_code_limit_ms` the run stops itself — one line naming the code
 *   and the trial, every finished trial kept, the blocked one recorded as
 *   errored (so `--resume` does not run it again), exit 2;
 * - (b) `kill -INT <pid>` twice (a CI runner or supervisor signals the
 *   process, not its group) forces the stop with no `sh` in between.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, completeLines, REPO_ROOT, runCli, trialLines, until } from '../helpers/cli.ts';
import { BASE_PROJECT, projectWith } from '../load/materialize.ts';

const DOMAIN = readFileSync(path.join(BASE_PROJECT, 'suites/notes/domain.ts'), 'utf8');
const CONFIG = readFileSync(path.join(BASE_PROJECT, 'toolmark.config.yaml'), 'utf8');
const GET_HANDLER =
  'handler: (input, context) => ({ id: input.note_id, lines: context.state.notes.get(input.note_id) ?? [] }),';
const GET_INPUT = "input: z.object({ note_id: z.string().describe('Note id such as N-1') }),";
/** Long enough that a loaded machine's pauses never reach it; every blocked case here blocks forever. */
const LIMIT_MS = 3_000;

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => Promise.all(disposers.map((dispose) => dispose())));

/** A cassette for notes/read-n1 on the typed surface: the model calls get_note with `noteId`, then answers. */
function cassette(noteId: string): string {
  const key = { domain: 'notes', task: 'read-n1', surface: 'typed', trial: '*' };
  const call = { id: 'c1', name: 'get_note', arguments: JSON.stringify({ note_id: noteId }) };
  return [
    { v: 1, provider: 'openai', model: 'm', key: { ...key, turn: 0 }, response: { text: null, tool_calls: [call] } },
    { v: 1, provider: 'openai', model: 'm', key: { ...key, turn: 1 }, response: { text: 'Done.', tool_calls: [] } },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');
}

async function project(name: string, domain: string, noteId = 'N-1', limit = true): Promise<string> {
  const made = await projectWith(
    {
      'suites/notes/domain.ts': domain,
      'c.jsonl': cassette(noteId),
      'toolmark.config.yaml': limit ? `${CONFIG.trimEnd()}\n  user_code_limit_ms: ${LIMIT_MS}\n` : CONFIG,
    },
    name,
  );
  disposers.push(made.dispose);
  return made.root;
}

/** The third call to note.get runs `block` (unless UNSTUCK is set); the others answer. */
function handlerBlockingOnCall3(block: string): string {
  expect(DOMAIN).toContain(GET_HANDLER);
  const counter = '((globalThis as { calls?: number }).calls = ((globalThis as { calls?: number }).calls ?? 0) + 1)';
  return DOMAIN.replace(
    GET_HANDLER,
    `handler: (input, context) => { if (${counter} === 3 && !process.env.UNSTUCK) { ${block} } return { id: input.note_id, lines: context.state.notes.get(input.note_id) ?? [] }; },`,
  );
}

const READ_N1 = ['--task', 'read-n1', '--surface', 'typed', '--split', 'train', '--provider', 'replay:c.jsonl'];

const trialsOf = (folder: string) =>
  trialLines<{ trial: number; status: string; error: { message: string } | null }>(folder);

describe('(a) user code that blocks the run past run.user_code_limit_ms', () => {
  it('a handler in a synchronous loop: one line naming tool and trial, finished trials kept, the blocked one errored, exit 2; --resume does not run it again', async () => {
    const root = await project('blocked-sync', handlerBlockingOnCall3('while (Date.now() > 0) {}'));
    const out = path.join(root, 'results');
    const folder = path.join(out, 'blocked');
    const args = ['run', '--root', root, ...READ_N1, '--trials', '5', '--concurrency', '1', '--out', out];
    const result = await runCli([...args, '--run-id', 'blocked'], { cwd: root, timeoutMs: 150_000 });
    expect(result.code, result.stderr).toBe(2);
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toEqual([
      `error: the handler of tool note.get blocked the run for more than ${LIMIT_MS} ms (run.user_code_limit_ms) in trial notes/read-n1, surface typed, trial 2, replay:m; stopped: 3 trials saved (this one as errored); resume with: toolmark run --resume results/blocked`,
    ]);
    expect(result.stderr).not.toMatch(/\n\s+at |Waiting for the debugger/);
    const trials = trialsOf(folder);
    expect(trials.map((trial) => [trial.trial, trial.status])).toEqual([
      [0, 'completed'],
      [1, 'completed'],
      [2, 'errored'],
    ]);
    expect(trials[2]!.error!.message).toBe(
      `the handler of tool note.get did not return within ${LIMIT_MS} ms (run.user_code_limit_ms): an endless loop? The run was stopped; this trial is not retried on --resume`,
    );
    // The lock went with the process: the resume needs no take-over.
    expect(existsSync(path.join(folder, 'run.lock'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(folder, 'manifest.json'), 'utf8')).finished_at).toBeNull();

    const resumed = await runCli(['run', '--root', root, '--resume', folder], {
      cwd: root,
      env: { UNSTUCK: '1' },
      timeoutMs: 120_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('2 trials run, 3 already done');
    const after = trialsOf(folder);
    expect(after.map((trial) => trial.trial).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(after.find((trial) => trial.trial === 2)!.status).toBe('errored');
    expect(JSON.parse(readFileSync(path.join(folder, 'summary.json'), 'utf8'))).toBeTruthy();
  }, 300_000);

  it('an async handler looping after an await, 3 trials in flight: the one pending async call is named and recorded', async () => {
    const root = await project(
      'blocked-after-await',
      handlerBlockingOnCall3('return (async () => { await null; while (Date.now() > 0) {} })() as never;'),
    );
    const out = path.join(root, 'results');
    const args = ['run', '--root', root, ...READ_N1, '--trials', '5', '--concurrency', '3', '--out', out];
    const result = await runCli([...args, '--run-id', 'await'], { cwd: root, timeoutMs: 150_000 });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `error: the handler of tool note.get blocked the run for more than ${LIMIT_MS} ms (run.user_code_limit_ms) in trial notes/read-n1, surface typed, trial 2, replay:m; stopped: `,
    );
    const trials = trialsOf(path.join(out, 'await'));
    const blocked = trials.filter((trial) => trial.status === 'errored');
    expect(blocked.map((trial) => trial.trial)).toEqual([2]);
    // Trials 0 and 1 were in flight beside it and are kept; none appears twice.
    expect(new Set(trials.map((trial) => trial.trial)).size).toBe(trials.length);
    expect(trials.map((trial) => trial.trial)).toEqual(expect.arrayContaining([0, 1, 2]));
  }, 300_000);

  it('a user zod schema whose regex backtracks catastrophically on the argument: the input schema is named', async () => {
    expect(DOMAIN).toContain(GET_INPUT);
    // zod runs JavaScript's backtracking engine: ^(a+)+$ on 40 a's and a '!' takes ~2^40 steps.
    const domain = DOMAIN.replace(GET_INPUT, 'input: z.object({ note_id: z.string().regex(/^(a+)+$/) }),');
    const root = await project('blocked-schema', domain, `${'a'.repeat(40)}!`);
    const out = path.join(root, 'results');
    const args = ['run', '--root', root, ...READ_N1, '--trials', '2', '--concurrency', '1', '--out', out];
    const result = await runCli([...args, '--run-id', 'schema'], { cwd: root, timeoutMs: 150_000 });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'error: the input schema of tool note.get blocked the run for more than 3000 ms (run.user_code_limit_ms) in trial notes/read-n1, surface typed, trial 0, replay:m; stopped: 1 trial saved (this one as errored)',
    );
    expect(trialsOf(path.join(out, 'schema')).map((trial) => [trial.trial, trial.status])).toEqual([[0, 'errored']]);
  }, 300_000);

  it('run.user_code_limit_ms below 100 ms is refused before any trial, with the range', async () => {
    const made = await projectWith(
      { 'toolmark.config.yaml': `${CONFIG.trimEnd()}\n  user_code_limit_ms: 5\n` },
      'limit-too-low',
    );
    disposers.push(made.dispose);
    const out = path.join(made.root, 'results');
    const result = await runCli(['run', '--root', made.root, '--provider', 'scripted', '--out', out], {
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^error: toolmark\.config\.yaml:\d+:\d+: run\.user_code_limit_ms: at least 100 ms: a shorter limit would stop runs on ordinary pauses/,
    );
    expect(existsSync(out)).toBe(false);
  }, 150_000);
});

describe('(b) the forced stop with kill -INT <pid>', () => {
  it('two SIGINTs to the process alone (not its group) force the stop, with no sh child; the finished trials are kept', async () => {
    const root = await project(
      'kill-int-pid',
      handlerBlockingOnCall3("process.stderr.write('stuck\\n'); while (Date.now() > 0) {}"),
      'N-1',
      false,
    );
    const out = path.join(root, 'results');
    const args = [path.join(REPO_ROOT, 'bin/toolmark.js'), 'run', '--root', root, ...READ_N1];
    // Not detached: the signal goes to this pid only, as `kill -INT <pid>` does.
    const child = spawn(
      process.execPath,
      [...args, '--trials', '5', '--concurrency', '1', '--out', out, '--run-id', 'int'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: cleanEnv(),
      },
    );
    let stderr = '';
    let ended = false;
    child.stdout!.resume();
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => {
        ended = true;
        resolve({ code, signal });
      }),
    );
    const guard = setTimeout(() => child.kill('SIGKILL'), 150_000);
    try {
      // The watchdog listens before the first trial starts (the run waits for it), so 'stuck' means it hears.
      await until(() => ended || stderr.includes('stuck\n'));
      expect(childrenNamed(child.pid!, 'sh')).toEqual([]);
      child.kill('SIGINT');
      await until(() => ended || stderr.includes('interrupted: a tool handler has not returned'));
      child.kill('SIGINT');
      const { signal } = await closed;
      expect(signal).toBe('SIGKILL');
      expect(stderr).toContain('forced stop: a tool handler did not return');
      expect(stderr).toContain('; 2 trials saved; resume with: toolmark run --resume ');
    } finally {
      clearTimeout(guard);
    }
    expect(completeLines(path.join(out, 'int', 'trials.jsonl'))).toBe(2);
  }, 300_000);
});

/** Pids of the children of `pid` whose name is `name` (from /proc). */
function childrenNamed(pid: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (new RegExp(`^PPid:\\s+${pid}$`, 'm').test(status) && new RegExp(`^Name:\\s+${name}$`, 'm').test(status))
        found.push(Number(entry));
    } catch {
      // a process that ended while we read /proc
    }
  }
  return found;
}
