import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSourceFile } from '../../src/load/source-file.ts';
import type { ConfigIssue } from '../../src/spec/index.ts';

// SourceFile.itemLine counts a task's line onwards from the last one asked
// (src/load/source-file.ts, lineOf): in any order it must give the line the
// `yaml` tree gives (SourceFile.position).

const root = mkdtempSync(join(tmpdir(), 'toolmark-lines-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TEXT = [
  'v: 1',
  '# a comment line',
  'tasks:',
  '  - { id: t0, kind: must-call, messages: [{ role: user, content: hi }], expect: { action: a.b } }',
  '',
  '  - id: t1',
  '    kind: must-call',
  '    messages: [{ role: user, content: "two\\nlines in one" }]',
  '    expect: { action: a.b }',
  '  - { id: t2, kind: must-call, messages: [{ role: user, content: hi }], expect: { action: a.b } }',
  '  -   id: t3',
  '      kind: must-call',
  '      messages: [{ role: user, content: hi }]',
  '      expect: { action: a.b }',
  '',
].join('\n');

async function source() {
  const path = join(root, 'tasks.yaml');
  writeFileSync(path, TEXT);
  const issues: ConfigIssue[] = [];
  const file = await readSourceFile(path, root, issues);
  expect(issues).toEqual([]);
  return file!;
}

describe('the line of each task', () => {
  it('is the line the tree gives, asked in order, backwards, twice and out of order', async () => {
    const expected = [4, 6, 10, 11];
    const fromTree = await source();
    expect(expected.map((_, index) => fromTree.position(['tasks', index]).line)).toEqual(expected);
    for (const order of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [0, 0, 1, 1, 3, 3],
      [2, 0, 3, 1],
    ]) {
      const file = await source();
      expect(order.map((index) => file.itemLine('tasks', index))).toEqual(order.map((index) => expected[index]));
    }
  });
});
