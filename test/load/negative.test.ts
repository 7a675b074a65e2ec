import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { ConfigError, formatConfigIssue } from '../../src/spec/index.ts';
import { FIXTURES, materialize } from './materialize.ts';

/**
 * One row per folder in test/fixtures/negative/: the folder's files are laid
 * over the valid project-basic, and loading must fail with this issue.
 */
const CASES: { name: string; at: string; message: string }[] = [
  {
    name: 'yaml-syntax',
    at: 'suites/notes/surfaces/broken.yaml:5:3',
    message: 'YAML syntax error: Flow sequence in block collection must be sufficiently indented',
  },
  {
    name: 'duplicate-yaml-key',
    at: 'suites/notes/surfaces/twice.yaml:3:1',
    message: 'YAML syntax error: Map keys must be unique',
  },
  {
    name: 'wrong-type',
    at: 'suites/notes/tasks/wrong-type.yaml:7:26',
    message: 'tasks[0].limits.max_calls: wrong type: got string "three" (expected number)',
  },
  {
    name: 'unknown-field',
    at: 'suites/notes/tasks/unknown-field.yaml:7:5',
    message: 'tasks[0].limit: unknown field "limit"',
  },
  {
    name: 'unknown-kind',
    at: 'suites/notes/tasks/unknown-kind.yaml:3:11',
    message:
      'unknown value "must-cal" (expected one of must-call, must-abstain, similar-tool, multi-step); did you mean must-call?',
  },
  {
    name: 'unknown-action',
    at: 'suites/notes/tasks/unknown-action.yaml:7:15',
    message:
      'tasks[0].expect.action: unknown action "note.gte" (expected an action of domain notes); did you mean note.get?',
  },
  {
    name: 'bad-constraint',
    at: 'suites/notes/tasks/bad-constraint.yaml:9:18',
    message: 'unknown constraint operator "regx"',
  },
  { name: 'bad-regex', at: 'suites/notes/tasks/bad-regex.yaml:9:18', message: 'regex does not compile' },
  {
    name: 'duplicate-id-across-splits',
    at: 'heldout/notes/tasks/dup.yaml:2:9',
    message: 'duplicate task id "greet" (also at suites/notes/tasks/train.yaml:12, in the train split)',
  },
  {
    name: 'duplicate-exposed-name',
    at: 'suites/notes/surfaces/clash.yaml:5:5',
    message: 'surface clash exposes two tools under the name "read_note"',
  },
  {
    name: 'actions-by-unknown-action',
    at: 'suites/notes/surfaces/wide-typo.yaml:9:15',
    message:
      'tools[0].actions_by.map.list: unknown action "note.lst" (expected an action of domain notes); did you mean note.list?',
  },
  {
    name: 'inexpressible-action',
    at: 'suites/notes/tasks/archive.yaml:2:5',
    message:
      'task "archive-n1" expects action note.archive, which no surface of domain notes can express (surfaces: typed-rev, typed, wide)',
  },
  {
    name: 'identity-without-registry-tool',
    at: 'suites/notes/surfaces/archive.yaml:4:13',
    message: 'action "note.archive" has no registry tool of the same name',
  },
  {
    name: 'unencodable-name',
    at: 'suites/notes/surfaces/encoded-clash.yaml:6:5',
    message: 'tool names "note.read" and "note__read" both encode to "note__read"',
  },
  {
    name: 'extends-cycle',
    at: 'suites/notes/surfaces/loop-b.yaml:2:10',
    message: 'extends cycle: loop-a → loop-b → loop-a',
  },
  {
    name: 'unknown-parent',
    at: 'suites/notes/surfaces/orphan.yaml:2:10',
    message: 'unknown parent surface "typd" (expected a surface id of domain notes); did you mean typed?',
  },
  {
    name: 'unknown-view',
    at: 'suites/notes/tasks/unknown-view.yaml:9:9',
    message: 'unknown final_state view "line_cout" (expected one of line_count, notes); did you mean line_count?',
  },
  { name: 'bad-config', at: 'toolmark.config.yaml:4:3', message: 'run.trails: unknown field "trails"' },
  {
    name: 'unknown-config-domain',
    at: 'toolmark.config.yaml:2:18',
    message: 'domains[1]: domain "note" has no suites/note/domain.ts; did you mean notes?',
  },
  {
    name: 'abstain-without-abstain',
    at: 'suites/notes/tasks/abstain.yaml:7:7',
    message: 'a must-abstain task needs expect.abstain: true',
  },
  {
    name: 'unknown-fault-action',
    at: 'suites/notes/tasks/fault.yaml:8:19',
    message: 'tasks[0].faults[0].action: unknown action "note.gett"',
  },
  {
    name: 'unknown-parameter',
    at: 'suites/notes/surfaces/param.yaml:5:7',
    message: 'unknown parameter "noteid" (expected one of note_id); did you mean note_id?',
  },
  {
    name: 'ask-about-in-must-call',
    at: 'suites/notes/tasks/ask.yaml:8:18',
    message:
      'tasks[0].expect.ask_about: ask_about is for a task that should ask instead of calling; this is a must-call task',
  },
  {
    name: 'bad-ask-about-regex',
    at: 'suites/notes/tasks/ask.yaml:8:27',
    message: 'tasks[0].expect.ask_about.regex: regex does not compile',
  },
  {
    name: 'default-constraint-typo',
    at: 'suites/notes/tasks/typo.yaml:9:18',
    message: 'unknown constraint operator "defualt"',
  },
  {
    name: 'unknown-argument',
    at: 'suites/notes/tasks/unknown-argument.yaml:8:21',
    message: 'action note.get has no argument "note" (expected one of note_id); did you mean note_id?',
  },
];

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(disposers.map((dispose) => dispose()));
});

async function loadFailure(name: string): Promise<ConfigError> {
  const project = await materialize(join(FIXTURES, 'negative', name), name);
  disposers.push(project.dispose);
  const error = await loadProject(project.root).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`${name}: expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('negative fixtures', () => {
  it('has a table row for every fixture folder (and a folder for every row)', () => {
    const folders = readdirSync(join(FIXTURES, 'negative')).sort();
    expect(CASES.map((row) => row.name).sort()).toEqual(folders);
  });

  it.each(CASES)('$name is rejected at $at', async ({ name, at, message }) => {
    const error = await loadFailure(name);
    const lines = error.issues.map(formatConfigIssue);
    const match = lines.find((line) => line.startsWith(`${at}:`) && line.includes(message));
    expect(match, `issues were:\n${lines.join('\n')}`).toBeDefined();
  });
});
