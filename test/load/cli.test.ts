import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { BASE_PROJECT, FIXTURES, REPO_ROOT, materialize } from './materialize.ts';

function toolmark(...args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/toolmark.js'), ...args], {
    encoding: 'utf8',
    cwd: REPO_ROOT,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(disposers.map((dispose) => dispose()));
});

describe('toolmark validate', () => {
  it('prints a summary and exits 0 on a valid project', () => {
    const { code, stdout, stderr } = toolmark('validate', '--root', BASE_PROJECT);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`OK ${BASE_PROJECT}`);
    expect(stdout).toMatch(/domain notes: 5 actions, 3 surfaces, 6 tasks/);
    expect(stdout).toMatch(/must-call\s+1\s+1/);
    expect(stdout).toMatch(/total\s+4\s+2/);
  });

  it('exits 2 with file:line and the message on a bad project, no stack trace', async () => {
    const project = await materialize(join(FIXTURES, 'negative', 'unknown-action'), 'cli');
    disposers.push(project.dispose);
    const { code, stdout, stderr } = toolmark('validate', '--root', project.root);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'error: suites/notes/tasks/unknown-action.yaml:7:15: tasks[0].expect.action: unknown action "note.gte" (expected an action of domain notes); did you mean note.get?\n',
    );

    const json = toolmark('validate', '--root', project.root, '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      issues: [
        {
          file: 'suites/notes/tasks/unknown-action.yaml',
          line: 7,
          column: 15,
          field: 'tasks[0].expect.action',
          message: 'unknown action "note.gte"',
          expected: 'an action of domain notes',
          suggestion: 'note.get',
        },
      ],
    });
  });

  it('--print-surface shows the merged revision as YAML (and JSON)', async () => {
    const { code, stdout } = toolmark('validate', '--root', BASE_PROJECT, '--print-surface', 'typed-rev');
    expect(code).toBe(0);
    const printed = parse(stdout);
    const expected = (await loadProject(BASE_PROJECT)).domains[0]!.surfaces.find(
      (surface) => surface.id === 'typed-rev',
    )!;
    expect(printed.hash).toBe(expected.hash);
    expect(printed.extends).toBe('typed');
    expect(printed.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'list_notes',
      'draft_note_append',
      'append_note',
      'get_note',
    ]);
    expect(printed.tools[3]).toEqual({
      name: 'get_note',
      description: 'Read one note (read-only).',
      action: 'note.get',
      parameters: expected.payload[3]!.parameters,
    });

    const json = toolmark('validate', '--root', BASE_PROJECT, '--print-surface', 'typed-rev', '--json');
    expect(JSON.parse(json.stdout)).toEqual(printed);

    const unknown = toolmark('validate', '--root', BASE_PROJECT, '--print-surface', 'typed-re');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'unknown surface "typed-re" (expected one of typed-rev, typed, wide); did you mean typed-rev?',
    );
  });
});

describe('toolmark tokens', () => {
  it('reports bytes and o200k tokens of each tool and of the whole payload', async () => {
    const { code, stdout } = toolmark('tokens', '--root', BASE_PROJECT, '--surface', 'typed', '--json');
    expect(code).toBe(0);
    const { rows } = JSON.parse(stdout);
    const typed = (await loadProject(BASE_PROJECT)).domains[0]!.surfaces.find((surface) => surface.id === 'typed')!;
    const expected = [
      ...typed.payload.map((tool) => ({ tool: tool.name, text: JSON.stringify(tool) })),
      { tool: null, text: JSON.stringify(typed.payload) },
    ];
    expect(
      rows.map((row: { tool: string | null; bytes: number; tokens: number }) => [row.tool, row.bytes, row.tokens]),
    ).toEqual(expected.map(({ tool, text }) => [tool, Buffer.byteLength(text), encode(text).length]));
  });

  it('on a deferred surface, adds the first request of each path: emulated, Anthropic native, OpenAI native', async () => {
    const root = join(REPO_ROOT, 'examples/deferred');
    const { code, stdout } = toolmark('tokens', '--root', root, '--surface', 'namespaced-deferred', '--json');
    expect(code).toBe(0);
    const rows = JSON.parse(stdout).rows.filter((row: { loading?: string }) => row.loading !== undefined);
    const surface = (await loadProject(root)).domains[0]!.surfaces.find((item) => item.id === 'namespaced-deferred')!;
    const search = surface.payload.find((tool) => tool.name === 'billing.customer.search')!;
    const count = (value: unknown) => encode(JSON.stringify(value)).length;
    // Anthropic: customer search alone. OpenAI: the `billing` namespace's name and description, then customer search.
    const namespace = {
      name: 'billing',
      description:
        'billing tools: invoice.get, invoice.list, invoice.lookup_archive, customer.get, customer.search, refund.preview, refund.submit',
    };
    expect(rows.map((row: { loading: string; tokens: number }) => [row.loading, row.tokens])).toEqual([
      ['initial', expect.any(Number)],
      ['initial-anthropic', count([search])],
      ['initial-openai', count([namespace, search])],
    ]);
  });

  it('prints a table and rejects an unknown surface with a suggestion', () => {
    const table = toolmark('tokens', '--root', BASE_PROJECT, '--surface', 'wide');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^domain\s+surface\s+tool\s+bytes\s+tokens$/m);
    expect(table.stdout).toMatch(/^notes\s+wide\s+note_operation\s+\d+\s+\d+$/m);
    expect(table.stdout).toMatch(/^notes\s+wide\s+\(total payload\)\s+\d+\s+\d+$/m);
    const bad = toolmark('tokens', '--root', BASE_PROJECT, '--surface', 'wid');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown surface "wid"');
    expect(bad.stderr).toContain('did you mean wide?');
  });
});
