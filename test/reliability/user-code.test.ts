/**
 * Issue 17 item 10 — user code must not hang toolmark or end it silently:
 * a domain.ts with an endless loop or a never-settling import, a
 * process.exit(0) at import or in a tool handler during a run, a handler
 * stuck in a synchronous loop (two Ctrl-Cs), a createState that shares one
 * object, and a task regex that backtracks catastrophically.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { matchConstraint } from '../../src/score/constraint.ts';
import { cleanEnv, completeLines, REPO_ROOT, runCli, until } from '../helpers/cli.ts';
import { runInProcess } from '../helpers/in-process-cli.ts';
import { BASE_PROJECT, projectWith } from '../load/materialize.ts';

const DOMAIN = readFileSync(path.join(BASE_PROJECT, 'suites/notes/domain.ts'), 'utf8');
const AFTER_IMPORTS = DOMAIN.indexOf('\ninterface State');

/** The fixture domain with `code` run at import, after its imports. */
function domainRunning(code: string): string {
  return `${DOMAIN.slice(0, AFTER_IMPORTS)}\n${code}\n${DOMAIN.slice(AFTER_IMPORTS)}`;
}

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => Promise.all(disposers.map((dispose) => dispose())));

async function project(name: string, files: Record<string, string>): Promise<string> {
  const made = await projectWith(files, name);
  disposers.push(made.dispose);
  return made.root;
}

/** A short limit: these modules never finish, so any limit is reached; generous enough for a loaded machine otherwise. */
const LIMIT = { TOOLMARK_IMPORT_TIMEOUT_MS: '1500' };

describe('user code at load time', () => {
  it('an endless synchronous loop in domain.ts: the watchdog names the file and ends validate', async () => {
    const root = await project('sync-loop', { 'suites/notes/domain.ts': domainRunning('while (Date.now() > 0) {}') });
    const result = await runCli(['validate', '--root', root], { env: LIMIT, timeoutMs: 120_000 });
    expect(result.signal).toBe('SIGKILL');
    expect(result.stderr.trim()).toBe(
      'error: suites/notes/domain.ts: importing the domain module did not finish within 1500 ms (an endless loop?); stopped. Limit: TOOLMARK_IMPORT_TIMEOUT_MS',
    );
  });

  it('a top-level await that never settles: exit 2, one message naming the file', async () => {
    const root = await project('never-settles', {
      'suites/notes/domain.ts': domainRunning('await new Promise(() => {});'),
    });
    const before = process.env.TOOLMARK_IMPORT_TIMEOUT_MS;
    process.env.TOOLMARK_IMPORT_TIMEOUT_MS = LIMIT.TOOLMARK_IMPORT_TIMEOUT_MS;
    try {
      const result = await runInProcess(['validate', '--root', root]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error: suites\/notes\/domain\.ts:1(:\d+)?: could not import the domain module: importing the domain module did not finish within 1500 ms: a promise that never settles/,
      );
    } finally {
      if (before === undefined) delete process.env.TOOLMARK_IMPORT_TIMEOUT_MS;
      else process.env.TOOLMARK_IMPORT_TIMEOUT_MS = before;
    }
  });

  it('process.exit(0) at import: validate and run exit 2 naming the file and line, nothing written', async () => {
    const root = await project('exit-at-import', { 'suites/notes/domain.ts': domainRunning('process.exit(0);') });
    const line = domainRunning('process.exit(0);').split('\n').indexOf('process.exit(0);') + 1;
    const validate = await runCli(['validate', '--root', root], { timeoutMs: 120_000 });
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain(`error: suites/notes/domain.ts:${line}:`);
    expect(validate.stderr).toContain('called process.exit(0); user code must not end the process');
    const out = path.join(root, 'results');
    const run = await runCli(['run', '--root', root, '--provider', 'scripted', '--out', out], { timeoutMs: 120_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`suites/notes/domain.ts:${line}:`);
    expect(existsSync(out)).toBe(false);
  });

  it('createState returning one shared object is refused', async () => {
    const shared = DOMAIN.replace(
      "  createState: () => ({ notes: new Map([['N-1', ['first']]]) }),",
      '  createState: () => SHARED,',
    ).replace('\ninterface State', "\nconst SHARED = { notes: new Map([['N-1', ['first']]]) };\ninterface State");
    expect(shared).toContain('createState: () => SHARED');
    const root = await project('shared-state', { 'suites/notes/domain.ts': shared });
    const result = await runInProcess(['validate', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'error: suites/notes/domain.ts: createState: createState returned the same object twice: every trial would share (and change) one state (expected a fresh object per call, e.g. createState: () => ({ notes: new Map() }))',
    );
  });

  // bin/toolmark.js leaves through process.exit() once the event loop is empty (a
  // shortcut past node's heap teardown); work user code schedules on `beforeExit`
  // must still run first, whether its listener was added with `on` or `once`.
  it.each(['on', 'once'])(
    'work a domain module schedules on beforeExit (process.%s) runs before the process ends',
    async (method) => {
      const flushed = path.join(await project(`before-exit-${method}`, {}), 'flushed.txt');
      const root = await project(`before-exit-${method}-domain`, {
        'suites/notes/domain.ts': domainRunning(
          `process.${method}('beforeExit', () => { if (!existsSync(process.env.FLUSH_FILE!)) setTimeout(() => writeFileSync(process.env.FLUSH_FILE!, 'flushed'), 20); });\nimport { existsSync, writeFileSync } from 'node:fs';`,
        ),
      });
      const result = await runCli(['validate', '--root', root], { env: { FLUSH_FILE: flushed }, timeoutMs: 120_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(flushed, 'utf8')).toBe('flushed');
    },
  );
});

describe('task regexes run on a linear-time engine', () => {
  // With a backtracking engine, ^(a+)+$ against n a's and a mismatch takes ~2^n steps:
  // 2^40 is hours. The test's own time limit turns a hang into a failure.
  it('^(a+)+$ against 40,000 a followed by ! finishes (and does not match)', () => {
    const crafted = `${'a'.repeat(40_000)}!`;
    expect(matchConstraint({ regex: '^(a+)+$' }, crafted)).toBe(false);
    expect(matchConstraint({ regex: '^(a+)+$' }, 'aaaa')).toBe(true);
  }, 20_000);

  it('a run whose task has ^(a+)+$ and whose model sends a crafted argument completes', async () => {
    const tasks = readFileSync(path.join(BASE_PROJECT, 'suites/notes/tasks/train.yaml'), 'utf8').replace(
      'args: { note_id: N-1 }',
      'args: { note_id: { regex: "^(a+)+$" } }',
    );
    const key = { domain: 'notes', task: 'read-n1', surface: 'typed', trial: '*' };
    const call = { id: 'c1', name: 'get_note', arguments: JSON.stringify({ note_id: `${'a'.repeat(5_000)}!` }) };
    const cassette = [
      { v: 1, provider: 'openai', model: 'm', key: { ...key, turn: 0 }, response: { text: null, tool_calls: [call] } },
      {
        v: 1,
        provider: 'openai',
        model: 'm',
        key: { ...key, turn: 1 },
        response: { text: 'No such note.', tool_calls: [] },
      },
    ];
    const root = await project('regex-bomb', {
      'suites/notes/tasks/train.yaml': tasks,
      'c.jsonl': cassette.map((line) => JSON.stringify(line)).join('\n'),
    });
    const out = path.join(root, 'results');
    const result = await runInProcess([
      'run',
      '--root',
      root,
      '--provider',
      'replay:c.jsonl',
      '--task',
      'read-n1',
      '--surface',
      'typed',
      '--trials',
      '1',
      '--split',
      'train',
      '--out',
      out,
      '--run-id',
      'bomb',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const trial = JSON.parse(readFileSync(path.join(out, 'bomb', 'trials.jsonl'), 'utf8').trim());
    expect(trial.status).toBe('completed');
    expect(trial.success).toBe(false);
  }, 120_000);

  it('validate refuses what the linear-time engine cannot run (a backreference), saying why', async () => {
    const tasks = readFileSync(path.join(BASE_PROJECT, 'suites/notes/tasks/train.yaml'), 'utf8').replace(
      'args: { note_id: N-1 }',
      'args: { note_id: { regex: "(N)-\\\\1" } }',
    );
    const root = await project('regex-backreference', { 'suites/notes/tasks/train.yaml': tasks });
    const result = await runInProcess(['validate', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('regex does not compile: invalid escape sequence: `\\1`');
    expect(result.stderr).toContain('backreferences and lookaround are not supported');
  });
});

/** A cassette for notes/read-n1 on the typed surface: the model calls get_note once, then answers. */
function readN1Cassette(): string {
  const key = { domain: 'notes', task: 'read-n1', surface: 'typed', trial: '*' };
  const call = { id: 'c1', name: 'get_note', arguments: JSON.stringify({ note_id: 'N-1' }) };
  return [
    { v: 1, provider: 'openai', model: 'm', key: { ...key, turn: 0 }, response: { text: null, tool_calls: [call] } },
    {
      v: 1,
      provider: 'openai',
      model: 'm',
      key: { ...key, turn: 1 },
      response: { text: 'It says first.', tool_calls: [] },
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');
}

const READ_N1 = ['--task', 'read-n1', '--surface', 'typed', '--split', 'train', '--provider', 'replay:c.jsonl'];
const GET_HANDLER =
  'handler: (input, context) => ({ id: input.note_id, lines: context.state.notes.get(input.note_id) ?? [] }),';

describe('user code during a run', () => {
  it('process.exit(0) in a tool handler: refused, the run saves every trial and exits 2 naming the tool', async () => {
    expect(DOMAIN).toContain(GET_HANDLER);
    const root = await project('exit-in-handler', {
      'suites/notes/domain.ts': DOMAIN.replace(GET_HANDLER, 'handler: () => process.exit(0),'),
      'c.jsonl': readN1Cassette(),
    });
    const out = path.join(root, 'results');
    const args = ['run', '--root', root, ...READ_N1, '--trials', '3', '--out', out, '--run-id', 'exits'];
    const result = await runCli(args, { cwd: root, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'error: the handler of tool note.get called process.exit(0) during the run (3 times); user code must not end the process',
    );
    const folder = path.join(out, 'exits');
    expect(completeLines(path.join(folder, 'trials.jsonl'))).toBe(3);
    const trials = readFileSync(path.join(folder, 'trials.jsonl'), 'utf8').trim().split('\n');
    expect(trials.map((line) => JSON.stringify(JSON.parse(line))).join('\n')).toContain(
      'called process.exit(0); user code must not end the process',
    );
    expect(JSON.parse(readFileSync(path.join(folder, 'manifest.json'), 'utf8')).finished_at).not.toBeNull();
  }, 180_000);

  it('a handler stuck in a synchronous loop: Ctrl-C twice forces the process down, keeping the finished trials; --resume completes', async () => {
    // Trials 1 and 2 return; the third call says so on stderr and never returns.
    const stuck =
      "handler: (input, context) => { const calls = ((globalThis as { calls?: number }).calls = ((globalThis as { calls?: number }).calls ?? 0) + 1); if (calls === 3 && !process.env.UNSTUCK) { process.stderr.write('stuck\\n'); while (Date.now() > 0) {} } return { id: input.note_id, lines: context.state.notes.get(input.note_id) ?? [] }; },";
    const root = await project('stuck-handler', {
      'suites/notes/domain.ts': DOMAIN.replace(GET_HANDLER, stuck),
      'c.jsonl': readN1Cassette(),
    });
    const out = path.join(root, 'results');
    const folder = path.join(out, 'stuck');
    const args = [path.join(REPO_ROOT, 'bin/toolmark.js'), 'run', '--root', root, ...READ_N1];
    // detached: its own process group, so a signal to the group is what a terminal's Ctrl-C sends.
    const child = spawn(
      process.execPath,
      [...args, '--trials', '5', '--concurrency', '1', '--out', out, '--run-id', 'stuck'],
      {
        cwd: root,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: cleanEnv(),
      },
    );
    let stderr = '';
    let ended = false;
    child.on('close', () => (ended = true));
    child.stdout!.resume();
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    const guard = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 150_000);
    try {
      // The watchdog listens before the first trial starts (the run waits for it), so 'stuck' means it hears.
      await until(() => ended || stderr.includes('stuck\n'));
      process.kill(-child.pid!, 'SIGINT');
      await until(() => ended || stderr.includes('interrupted: a tool handler has not returned'));
      process.kill(-child.pid!, 'SIGINT');
      const { signal } = await closed;
      expect(signal).toBe('SIGKILL');
      expect(stderr).toContain(`forced stop: a tool handler did not return`);
      expect(stderr).toContain(`; 2 trials saved; resume with: toolmark run --resume `);
    } finally {
      clearTimeout(guard);
    }
    expect(completeLines(path.join(folder, 'trials.jsonl'))).toBe(2);
    expect(JSON.parse(readFileSync(path.join(folder, 'manifest.json'), 'utf8')).finished_at).toBeNull();
    const resumed = await runCli(['run', '--root', root, '--resume', folder], {
      cwd: root,
      env: { UNSTUCK: '1' },
      timeoutMs: 120_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('took over a stale lock');
    expect(completeLines(path.join(folder, 'trials.jsonl'))).toBe(5);
  }, 300_000);
});
