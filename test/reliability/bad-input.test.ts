/**
 * Issue 9 item 3 — the bad input corpus. Every malformed file in
 * test/fixtures/bad-input/<case>/ (laid over the valid project-basic), every
 * generated huge file and every bad flag makes `toolmark run` print ONE clear
 * message naming the file (and line, where the file has lines), exit 2,
 * print no stack trace, and create nothing under --out.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, materialize } from '../load/materialize.ts';
import { listFiles, runCli, type CliResult } from '../helpers/cli.ts';
import { runInProcess } from '../helpers/in-process-cli.ts';

const CORPUS = path.join(FIXTURES, 'bad-input');
/** Cassette cases select exactly one trial, so one bad turn is one message. */
const REPLAY = ['--provider', 'replay:cassettes/c.jsonl', '--task', 'read-n1', '--surface', 'typed', '--trials', '1'];

interface Row {
  /** Folder under test/fixtures/bad-input/. */
  name: string;
  /** Where the message points: `file:line:column`, `file:line` or the flag. */
  at: string;
  message: string;
  args?: string[];
}

const ROWS: Row[] = [
  // YAML syntax
  {
    name: 'yaml-unclosed-flow',
    at: 'suites/notes/tasks/bad.yaml:6:5',
    message: 'YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]',
  },
  {
    name: 'yaml-tab-indent',
    at: 'suites/notes/tasks/bad.yaml:4:1',
    message: 'YAML syntax error: Tabs are not allowed as indentation',
  },
  {
    name: 'yaml-duplicate-key',
    at: 'suites/notes/tasks/bad.yaml:10:5',
    message: 'YAML syntax error: Map keys must be unique',
  },
  {
    name: 'yaml-unterminated-string',
    at: 'suites/notes/surfaces/bad.yaml:7:1',
    message: 'YAML syntax error: Missing closing "quote',
  },
  {
    name: 'yaml-multiple-documents',
    at: 'suites/notes/tasks/bad.yaml:10:1',
    message: 'YAML syntax error: Source contains multiple documents',
  },
  { name: 'yaml-alias-bomb', at: 'suites/notes/tasks/bad.yaml:3:8', message: 'YAML aliases expand too far' },
  {
    name: 'yaml-config-syntax',
    at: 'toolmark.config.yaml:4:1',
    message: 'YAML syntax error: Flow sequence in block collection',
  },
  {
    name: 'yaml-not-a-mapping',
    at: 'suites/notes/tasks/bad.yaml:1:1',
    message: 'wrong type: got a list (expected object)',
  },
  {
    name: 'yaml-empty-file',
    at: 'suites/notes/tasks/empty.yaml:1:1',
    message: 'wrong type: got null (expected object)',
  },
  // Wrong types
  {
    name: 'type-kind-number',
    at: 'suites/notes/tasks/bad.yaml:4:11',
    message: 'tasks[0].kind: unknown value 3 (expected one of must-call, must-abstain, similar-tool, multi-step)',
  },
  {
    name: 'type-messages-string',
    at: 'suites/notes/tasks/bad.yaml:5:15',
    message: 'tasks[0].messages: wrong type: got string "Read N-1" (expected a list)',
  },
  {
    name: 'type-max-turns-zero',
    at: 'suites/notes/tasks/bad.yaml:10:26',
    message: 'tasks[0].limits.max_turns: Too small',
  },
  {
    name: 'type-permissions-string',
    at: 'suites/notes/tasks/bad.yaml:7:27',
    message: 'tasks[0].actor.permissions: wrong type: got string "note:read" (expected a list)',
  },
  {
    name: 'type-approve-enum',
    at: 'suites/notes/tasks/bad.yaml:10:14',
    message: 'tasks[0].approve: unknown value "sometimes" (expected one of none, all, after_preview)',
  },
  { name: 'type-missing-id', at: 'suites/notes/tasks/bad.yaml:3:5', message: 'tasks[0].id: required field is missing' },
  {
    name: 'type-bad-id-chars',
    at: 'suites/notes/tasks/bad.yaml:3:9',
    message: 'tasks[0].id: letters, digits, dot, dash or underscore',
  },
  { name: 'type-task-version', at: 'suites/notes/tasks/bad.yaml:1:4', message: 'v: must be 1, got number 2' },
  {
    name: 'type-surface-tools-map',
    at: 'suites/notes/surfaces/bad.yaml:4:3',
    message: 'tools: wrong type: got a mapping (expected a list)',
  },
  {
    name: 'type-surface-strict-string',
    at: 'suites/notes/surfaces/bad.yaml:3:9',
    message: 'strict: wrong type: got string "maybe" (expected boolean)',
  },
  {
    name: 'type-empty-tasks',
    at: 'suites/notes/tasks/bad.yaml:2:8',
    message: 'tasks: Too small: expected array to have >=1 items',
  },
  // Unknown fields
  {
    name: 'field-task',
    at: 'suites/notes/tasks/bad.yaml:10:5',
    message: 'tasks[0].expected_action: unknown field "expected_action"',
  },
  {
    name: 'field-expect',
    at: 'suites/notes/tasks/bad.yaml:10:7',
    message: 'tasks[0].expect.argz: unknown field "argz"',
  },
  {
    name: 'field-surface',
    at: 'suites/notes/surfaces/bad.yaml:3:1',
    message: 'descripton: unknown field "descripton"',
  },
  {
    name: 'field-surface-tool',
    at: 'suites/notes/surfaces/bad.yaml:6:5',
    message: 'tools[0].readonly: unknown field "readonly"',
  },
  { name: 'field-config', at: 'toolmark.config.yaml:5:1', message: 'reports: unknown field "reports"' },
  // Unknown actions and values
  {
    name: 'action-expect',
    at: 'suites/notes/tasks/bad.yaml:9:15',
    message: 'unknown action "note.fetch" (expected an action of domain notes); did you mean note.get?',
  },
  { name: 'action-sequence', at: 'suites/notes/tasks/bad.yaml:8:29', message: 'unknown action "note.apend"' },
  { name: 'action-distractor', at: 'suites/notes/tasks/bad.yaml:10:21', message: 'unknown action "note.lisst"' },
  {
    name: 'action-surface',
    at: 'suites/notes/surfaces/bad.yaml:4:13',
    message: 'tools[0].action: unknown action "note.delete"',
  },
  {
    name: 'action-forbid-effect',
    at: 'suites/notes/tasks/bad.yaml:10:24',
    message: 'unknown value "writes" (expected one of read, write, destructive); did you mean write?',
  },
  {
    name: 'action-good-next',
    at: 'suites/notes/tasks/bad.yaml:11:73',
    message: 'tasks[0].faults[0].good_next: unknown value "pray"',
  },
  {
    name: 'action-fault-on-call-zero',
    at: 'suites/notes/tasks/bad.yaml:11:38',
    message: 'tasks[0].faults[0].on_call: Too small',
  },
  // extends
  { name: 'extends-self', at: 'suites/notes/surfaces/self.yaml:3:10', message: 'extends cycle: selfish → selfish' },
  {
    name: 'extends-three-cycle',
    at: 'suites/notes/surfaces/b.yaml:3:10',
    message: 'extends cycle: ring-a → ring-c → ring-b → ring-a',
  },
  {
    name: 'extends-unknown-parent',
    at: 'suites/notes/surfaces/orphan.yaml:3:10',
    message: 'unknown parent surface "wide-v9"',
  },
  // Constraints
  {
    name: 'constraint-operator',
    at: 'suites/notes/tasks/bad.yaml:10:24',
    message: 'unknown constraint operator "regexp"',
  },
  { name: 'constraint-regex', at: 'suites/notes/tasks/bad.yaml:10:24', message: 'regex does not compile' },
  {
    name: 'constraint-one-of-empty',
    at: 'suites/notes/tasks/bad.yaml:10:24',
    message: 'one_of must be a non-empty list',
  },
  {
    name: 'constraint-mixed',
    at: 'suites/notes/tasks/bad.yaml:10:24',
    message: 'constraint mixes the operator "regex" with other keys (contains)',
  },
  { name: 'constraint-any-false', at: 'suites/notes/tasks/bad.yaml:10:24', message: 'any must be true' },
  {
    name: 'constraint-unknown-argument',
    at: 'suites/notes/tasks/bad.yaml:10:19',
    message: 'action note.get has no argument "id"',
  },
  // Config
  { name: 'config-trials-zero', at: 'toolmark.config.yaml:3:11', message: 'run.trials: Too small' },
  { name: 'config-split', at: 'toolmark.config.yaml:3:10', message: 'run.split: unknown value "test"' },
  { name: 'config-preset-kind', at: 'toolmark.config.yaml:4:11', message: 'unknown value "openai-compat"' },
  {
    name: 'config-preset-key-in-file',
    at: 'toolmark.config.yaml:6:5',
    message: 'providers.local.api_key: unknown field "api_key"',
  },
  { name: 'config-negative-price', at: 'toolmark.config.yaml:3:27', message: 'prices.m.input_per_million: Too small' },
  { name: 'config-gate-range', at: 'toolmark.config.yaml:3:26', message: 'gate.min_argument_validity: Too big' },
  {
    name: 'config-unknown-domain',
    at: 'toolmark.config.yaml:2:18',
    message: 'domain "tickets" has no suites/tickets/domain.ts',
  },
  { name: 'config-version', at: 'toolmark.config.yaml:1:4', message: 'v: must be 1, got number 3' },
  // Cassettes
  { name: 'cassette-bad-json', at: 'cassettes/c.jsonl:2', message: 'invalid JSON', args: REPLAY },
  { name: 'cassette-not-jsonl', at: 'cassettes/c.jsonl:1', message: 'invalid JSON', args: REPLAY },
  {
    name: 'cassette-missing-key',
    at: 'cassettes/c.jsonl:1',
    message: 'key: Invalid input: expected object, received undefined',
    args: REPLAY,
  },
  {
    name: 'cassette-missing-response',
    at: 'cassettes/c.jsonl:1',
    message: 'response: a cassette line has either a response or an error',
    args: REPLAY,
  },
  { name: 'cassette-version', at: 'cassettes/c.jsonl:1', message: 'v: Invalid input: expected 1', args: REPLAY },
  {
    name: 'cassette-arguments-object',
    at: 'cassettes/c.jsonl:1',
    message: 'response.tool_calls.0.arguments: Invalid input: expected string',
    args: REPLAY,
  },
  { name: 'cassette-negative-turn', at: 'cassettes/c.jsonl:1', message: 'key.turn: Too small', args: REPLAY },
  { name: 'cassette-unknown-field', at: 'cassettes/c.jsonl:1', message: 'Unrecognized key: "headers"', args: REPLAY },
  {
    name: 'cassette-stale-hash',
    at: 'cassettes/c.jsonl:1',
    message:
      'stale cassette: the surface `typed` or the task `read-n1` changed since it was recorded; re-record or pass --allow-stale',
    args: REPLAY,
  },
  {
    name: 'cassette-missing-turn',
    at: '--provider replay:m',
    message: 'has no turn for notes/read-n1/typed/trial 0/turn 0',
    args: REPLAY,
  },
  { name: 'cassette-empty', at: 'cassettes/c.jsonl', message: 'the cassettes hold no turns', args: REPLAY },
];

/** Bad flags on the valid project: no fixture file, the flag is the "file". */
const FLAGS: { args: string[]; at: string; message: string }[] = [
  { args: ['--trials', '0'], at: '--trials', message: 'not a positive whole number' },
  { args: ['--trials', '-1'], at: '--trials', message: 'not a positive whole number' },
  { args: ['--trials', '2.5'], at: '--trials', message: 'not a positive whole number' },
  { args: ['--trials', 'many'], at: '--trials', message: 'not a positive whole number' },
  { args: ['--concurrency', '0'], at: '--concurrency', message: 'not a positive whole number' },
  { args: ['--split', 'foo'], at: '--split', message: 'unknown split "foo" (expected train, heldout or all)' },
  { args: ['--shard', '3/2'], at: '--shard', message: 'not a shard' },
  { args: ['--shard', 'half'], at: '--shard', message: 'not a shard' },
  { args: ['--surface', 'typd'], at: '--surface', message: 'unknown surface "typd"' },
  { args: ['--task', 'nothing-*'], at: '--task', message: 'no trials selected' },
  { args: ['--domain', 'note'], at: '(command line)', message: 'unknown domain "note"' },
  { args: ['--provider', 'opneai:gpt-4.1'], at: '--provider', message: 'unknown provider "opneai"' },
  {
    args: ['--provider', 'openai:gpt-4.1'],
    at: '--provider',
    message: 'no API key: set the environment variable OPENAI_API_KEY',
  },
  {
    args: ['--provider', 'anthropic:claude'],
    at: '--provider',
    message: 'no API key: set the environment variable ANTHROPIC_API_KEY',
  },
  { args: ['--provider', 'openai-compatible:m'], at: '--provider', message: 'needs a model and a base URL' },
  { args: ['--provider', 'replay:nowhere/*.jsonl'], at: 'nowhere/*.jsonl', message: 'no cassette matches this path' },
  { args: ['--resume', 'never-ran'], at: '--resume', message: 'no run folder "never-ran"' },
  {
    args: ['--record', '/dev/null/cassette.jsonl'],
    at: '--record',
    message: 'cannot write the cassette here: /dev/null is not a folder',
  },
  { args: ['--record', '/tmp'], at: '--record', message: 'cannot write the cassette here: it is a folder' },
  { args: ['--run-id', '../escape'], at: '--run-id', message: 'not a run id' },
  { args: ['--run-id', 'a/b'], at: '--run-id', message: 'not a run id' },
];

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(disposers.map((dispose) => dispose()));
});

async function project(overlay: string | null, name: string): Promise<string> {
  const made = await materialize(overlay, `bad-${name}`);
  disposers.push(made.dispose);
  return made.root;
}

async function freshOut(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'toolmark-bad-input-'));
  disposers.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'results');
}

/** The promise of item 3, for one invocation. */
function expectOneClearMessage(result: CliResult, out: string, at: string, message: string): void {
  expect(result.code, `stderr: ${result.stderr}`).toBe(2);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('internal error');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, `stderr: ${result.stderr}`).toHaveLength(1);
  expect(lines[0]!.startsWith('error: ')).toBe(true);
  expect(lines[0]).toContain(at);
  expect(lines[0]).toContain(message);
  // No results folder, not even an empty one (and nothing else under it).
  expect(existsSync(out) ? listFiles(out) : []).toEqual([]);
  expect(existsSync(out)).toBe(false);
}

async function runRow(
  overlay: string | null,
  name: string,
  args: string[],
  spawn = false,
): Promise<{ result: CliResult; out: string }> {
  const root = await project(overlay, name);
  const out = await freshOut();
  const argv = ['run', '--root', root, ...args, '--out', out];
  return { result: spawn ? await runCli(argv) : await runInProcess(argv), out };
}

describe('bad input corpus (toolmark run)', () => {
  it('has a row for every fixture folder (and a folder for every row), at least 40 files', () => {
    expect(ROWS.map((row) => row.name).sort()).toEqual(readdirSync(CORPUS).sort());
    expect(listFiles(CORPUS).length).toBeGreaterThanOrEqual(40);
  });

  it.each(ROWS)('$name → $at', async ({ name, at, message, args }) => {
    const { result, out } = await runRow(path.join(CORPUS, name), name, args ?? ['--provider', 'scripted']);
    expectOneClearMessage(result, out, at, message);
  });

  it.each(FLAGS)('flag $args.0 $args.1 → $at', async ({ args, at, message }) => {
    const { result, out } = await runRow(null, 'flags', ['--provider', 'scripted', ...args]);
    expectOneClearMessage(result, out, at, message);
  });

  it.concurrent.each([
    ROWS[0]!,
    ROWS.find((row) => row.name === 'cassette-stale-hash')!,
    ROWS.find((row) => row.name === 'config-preset-key-in-file')!,
  ])('as a real process: $name → exit 2, one line on stderr', async ({ name, at, message, args }) => {
    const { result, out } = await runRow(
      path.join(CORPUS, name),
      `spawn-${name}`,
      args ?? ['--provider', 'scripted'],
      true,
    );
    expectOneClearMessage(result, out, at, message);
  });

  it('an unknown flag is a usage error: exit 2, the error first, nothing written', async () => {
    const out = await freshOut();
    const result = await runCli(['run', '--root', await project(null, 'usage'), '--trails', '3', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe("error: unknown option '--trails'");
    expect(result.stderr).toContain('Did you mean --trials?');
    expect(existsSync(out)).toBe(false);
  });

  it('--out naming a file (not a folder) is refused before anything runs, the file untouched', async () => {
    const root = await project(null, 'out-file');
    const target = path.join(root, 'toolmark.config.yaml');
    const before = readFileSync(target, 'utf8');
    const result = await runInProcess(['run', '--root', root, '--provider', 'scripted', '--out', target]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^error: --out: .*toolmark\.config\.yaml: cannot write results here: .* is not a folder/),
    ]);
    expect(readFileSync(target, 'utf8')).toBe(before);
  });

  it('a huge task file (generated, > 5 MB) is refused by size before parsing', async () => {
    const root = await project(null, 'huge-tasks');
    const task =
      '  - id: big-{n}\n    kind: must-abstain\n    messages:\n      - { role: user, content: "padding padding padding padding padding" }\n    expect: { abstain: true }\n';
    const chunks = ['v: 1\ntasks:\n'];
    let size = 0;
    for (let n = 0; size <= 6 * 1024 * 1024; n += 1) {
      const text = task.replace('{n}', String(n));
      chunks.push(text);
      size += text.length;
    }
    writeFileSync(path.join(root, 'suites/notes/tasks/huge.yaml'), chunks.join(''));
    const out = await freshOut();
    const result = await runInProcess(['run', '--root', root, '--provider', 'scripted', '--out', out]);
    expectOneClearMessage(result, out, 'suites/notes/tasks/huge.yaml', 'larger than the 5 MB limit');
  });

  it('a huge cassette (generated, 40 000 lines) with one bad line names that line', async () => {
    const root = await project(null, 'huge-cassette');
    const line = JSON.stringify({
      v: 1,
      provider: 'openai',
      model: 'm',
      key: { domain: 'notes', task: 'read-n1', surface: 'typed', trial: '*', turn: 0 },
      response: { text: 'N-1 says first', tool_calls: [] },
    });
    const lines = Array.from({ length: 40_000 }, () => line);
    lines[31_337] = line.slice(0, 60);
    mkdirSync(path.join(root, 'cassettes'));
    writeFileSync(path.join(root, 'cassettes/c.jsonl'), `${lines.join('\n')}\n`);
    const out = await freshOut();
    const result = await runInProcess(['run', '--root', root, ...REPLAY, '--out', out]);
    expectOneClearMessage(result, out, 'cassettes/c.jsonl:31338', 'invalid JSON');
  });

  it('a huge cassette where every line is bad gives a bounded message, not one line per bad line', async () => {
    const root = await project(null, 'flood-cassette');
    mkdirSync(path.join(root, 'cassettes'));
    writeFileSync(path.join(root, 'cassettes/c.jsonl'), 'not json\n'.repeat(20_000));
    const out = await freshOut();
    const result = await runInProcess(['run', '--root', root, ...REPLAY, '--out', out]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toContain('cassettes/c.jsonl:1: invalid JSON');
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.at(-1)).toContain('19990 more');
    expect(existsSync(out)).toBe(false);
  });
});
