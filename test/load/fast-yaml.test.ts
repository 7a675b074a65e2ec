import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { parseFast } from '../../src/load/fast-yaml.ts';
import { readSourceFile } from '../../src/load/source-file.ts';
import type { ConfigIssue } from '../../src/spec/index.ts';
import { REPO_ROOT } from './materialize.ts';

// The fast first parse (js-yaml, src/load/fast-yaml.ts) must give what the
// `yaml` tree gives, on every YAML file the repository holds, good or bad:
// the same value, the same task lines; and leave to `yaml` what only it
// checks (syntax errors, duplicate keys, aliases), so those issues read as before.

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

const FILES = ['suites', 'heldout', 'examples', 'test/fixtures'].flatMap((dir) => yamlFiles(join(REPO_ROOT, dir)));
const scratch = mkdtempSync(join(os.tmpdir(), 'toolmark-fast-yaml-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('fast YAML parse', () => {
  it('gives the values and the task lines of the `yaml` tree on every YAML file of the repository', () => {
    expect(FILES.length).toBeGreaterThan(50);
    let fast = 0;
    for (const file of FILES) {
      const text = readFileSync(file, 'utf8');
      const parsed = parseFast(text);
      const lines = new LineCounter();
      const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
      if (!parsed) continue;
      fast += 1;
      const where = relative(REPO_ROOT, file);
      // A file js-yaml accepts is one `yaml` accepts, with the same value.
      expect(document.errors, where).toEqual([]);
      expect(parsed.value, where).toEqual(document.toJS());
      for (const [key, offsets] of parsed.itemOffsets) {
        offsets.forEach((offset, index) => {
          const node = document.getIn([key, index], true) as { range?: [number, number, number] };
          expect(lines.linePos(offset).line, `${where} ${key}[${index}]`).toBe(lines.linePos(node.range![0]).line);
        });
      }
    }
    // Nearly all of them take the fast path (the rest are the bad-input corpus's syntax errors and aliases).
    expect(fast).toBeGreaterThan(FILES.length * 0.8);
  });

  it('leaves to `yaml` files with aliases, duplicate keys, syntax errors or several documents', () => {
    expect(parseFast('a: &x [1]\nb: *x\n')).toBeNull();
    expect(parseFast('a: 1\na: 2\n')).toBeNull();
    expect(parseFast('a: [1\n')).toBeNull();
    expect(parseFast('a: 1\n---\nb: 2\n')).toBeNull();
    expect(parseFast('')).toBeNull();
    // Core schema, as `yaml` reads it: no timestamps, no merge keys.
    expect(parseFast('d: 2026-01-01\n<<: { a: 1 }\n')!.value).toEqual({ d: '2026-01-01', '<<': { a: 1 } });
  });

  it('reads a valid task file without building the tree, yet an issue still gets its line and column', async () => {
    const file = join(scratch, 'tasks.yaml');
    writeFileSync(file, 'v: 1\ntasks:\n  - id: a\n    kind: must-call\n\n  - id: b\n    kind: nonsense\n');
    const issues: ConfigIssue[] = [];
    const source = (await readSourceFile(file, scratch, issues))!;
    expect(issues).toEqual([]);
    expect([source.itemLine('tasks', 0), source.itemLine('tasks', 1)]).toEqual([3, 6]);
    expect(source.issue(['tasks', 1, 'kind'], { message: 'bad kind' })).toMatchObject({
      file: 'tasks.yaml',
      line: 7,
      column: 11,
      field: 'tasks[1].kind',
    });
    // Every call gives a value of its own, as the tree's toJS does.
    const first = source.value() as { tasks: { id: string }[] };
    first.tasks[0]!.id = 'changed';
    expect((source.value() as { tasks: { id: string }[] }).tasks[0]!.id).toBe('a');
  });
});
