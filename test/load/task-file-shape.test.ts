import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTaskFiles } from '../../src/load/tasks.ts';
import { formatConfigIssue, type ConfigIssue } from '../../src/spec/index.ts';

// A task file's outer shape is taken as it is when it is plainly right
// (src/load/tasks.ts, plainTaskList); anything else still goes to zod, whose
// issues name the file, line and field as before.

const root = mkdtempSync(join(tmpdir(), 'toolmark-task-shape-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TASK = '  - { id: t1, kind: must-call, messages: [{ role: user, content: hi }], expect: { action: a.b } }\n';

async function read(name: string, text: string): Promise<{ ids: string[]; issues: string[] }> {
  const dir = join(root, name, 'suites', 'd', 'tasks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tasks.yaml'), text);
  const issues: ConfigIssue[] = [];
  const ids: string[] = [];
  for await (const located of readTaskFiles(join(root, name), 'd', 'train', issues))
    ids.push(...located.map(({ task }) => task.id));
  return { ids, issues: issues.map(formatConfigIssue) };
}

describe('a task file’s outer shape', () => {
  it('reads a plainly right file, with or without `v: 1`', async () => {
    expect(await read('plain', `tasks:\n${TASK}`)).toEqual({ ids: ['t1'], issues: [] });
    expect(await read('versioned', `v: 1\ntasks:\n${TASK}`)).toEqual({ ids: ['t1'], issues: [] });
  });

  it('leaves every other shape to zod, which says what is wrong and where', async () => {
    const file = 'suites/d/tasks/tasks.yaml';
    const cases: [string, string, string][] = [
      ['version', `v: 2\ntasks:\n${TASK}`, `${file}:1:4: v: must be 1, got number 2`],
      ['version-null', `v:\ntasks:\n${TASK}`, `${file}:1:3: v: must be 1, got null`],
      ['extra', `extra: 1\ntasks:\n${TASK}`, `${file}:1:1: extra: unknown field "extra" (expected one of v, tasks)`],
      ['empty', 'tasks: []\n', `${file}:1:8: tasks: Too small: expected array to have >=1 items`],
      ['mapping', 'tasks: { a: 1 }\n', `${file}:1:8: tasks: wrong type: got a mapping (expected a list)`],
      ['missing', 'v: 1\n', `${file}:1:1: tasks: required field is missing (expected a list)`],
    ];
    for (const [name, text, issue] of cases) {
      const { ids, issues } = await read(name, text);
      expect(ids, name).toEqual([]);
      expect(issues, name).toHaveLength(1);
      expect(issues[0], name).toBe(issue);
    }
  });
});
