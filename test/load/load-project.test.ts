import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject, MAX_FILE_BYTES } from '../../src/load/index.ts';
import { ConfigError, formatConfigIssue } from '../../src/spec/index.ts';
import { BASE_PROJECT, FIXTURES, materialize, projectWith } from './materialize.ts';

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(disposers.map((dispose) => dispose()));
});

async function failure(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error.issues.map(formatConfigIssue);
}

describe('loadProject on a valid project', () => {
  it('reads config, domain, surfaces and both splits', async () => {
    const project = await loadProject(BASE_PROJECT);
    expect(project.root).toBe(BASE_PROJECT);
    expect(project.configFile).toBe(join(BASE_PROJECT, 'toolmark.config.yaml'));
    expect(project.config.run.trials).toBe(2);
    expect(project.config.run.concurrency).toBe(8); // default kept
    expect(project.domains.map((domain) => domain.name)).toEqual(['notes']);
    const notes = project.domains[0]!;
    expect(notes.domain.actions.map((action) => action.id)).toContain('note.append');
    expect(notes.surfaces.map((surface) => surface.id).sort()).toEqual(['typed', 'typed-rev', 'wide']);
    expect(notes.tasks.filter((task) => task.split === 'train').map((task) => task.id)).toEqual([
      'read-n1',
      'greet',
      'preview-not-append',
      'list-then-append',
    ]);
    expect(notes.tasks.filter((task) => task.split === 'heldout').map((task) => task.id)).toEqual([
      'which-notes',
      'weather',
    ]);
  });

  it('keeps each task as written, with defaults filled and its source line', async () => {
    const notes = (await loadProject(BASE_PROJECT)).domains[0]!;
    const greet = notes.tasks.find((task) => task.id === 'greet')!;
    expect(greet).toMatchObject({
      kind: 'must-abstain',
      domain: 'notes',
      split: 'train',
      approve: 'none',
      actor: { id: 'user', permissions: [] },
      faults: [],
      limits: { max_calls: 8, max_turns: 8 },
      source: { file: 'suites/notes/tasks/train.yaml', line: 12 },
    });
    const multi = notes.tasks.find((task) => task.id === 'list-then-append')!;
    expect(multi.expect.sequence).toEqual([
      'note.list',
      'note.preview',
      { action: 'note.append', args: { line: { regex: '^done$' }, action_id: { any: true } } },
    ]);
    expect(multi.faults).toEqual([{ action: 'note.list', on_call: 1, error: 'tool_timeout', good_next: 'retry' }]);
    expect(multi.source).toEqual({ file: 'suites/notes/tasks/train.yaml', line: 27 });
  });

  it('resolves identity and multiplexed tools into the provider payload', async () => {
    const notes = (await loadProject(BASE_PROJECT)).domains[0]!;
    const typed = notes.surfaces.find((surface) => surface.id === 'typed')!;
    expect(typed.payload.map((tool) => tool.name)).toEqual([
      'get_note',
      'list_notes',
      'preview_note_append',
      'append_note',
    ]);
    expect(typed.strict).toBe(true);
    expect(typed.payload.every((tool) => tool.strict)).toBe(true);
    // No description in the surface: the registry tool's description is used.
    expect(typed.payload[1]!.description).toBe('List notes.');
    // Parameter overrides, including a nested dotted path; strict closes every object.
    expect(typed.payload[0]!.parameters).toEqual({
      type: 'object',
      properties: { note_id: { type: 'string', description: 'Note id such as N-1' } },
      required: ['note_id'],
      additionalProperties: false,
    });
    const filter = (typed.payload[1]!.parameters.properties as any).filter;
    expect(filter.properties.owner.properties.email.description).toBe('Owner e-mail address');
    expect(filter.additionalProperties).toBe(false);
    expect(filter.properties.owner.additionalProperties).toBe(false);
    expect(typed.tools[3]).toMatchObject({
      name: 'append_note',
      tool: 'note.append',
      mapping: { kind: 'identity', action: 'note.append' },
    });

    const wide = notes.surfaces.find((surface) => surface.id === 'wide')!;
    expect(wide.strict).toBe(false);
    expect(wide.tools).toHaveLength(1);
    expect(wide.tools[0]).toMatchObject({
      name: 'note_operation',
      tool: 'note.operation',
      mapping: {
        kind: 'multiplexed',
        field: 'operation',
        arguments: 'payload',
        map: { get: 'note.get', list: 'note.list', preview: 'note.preview', append: 'note.append' },
      },
    });
    expect(wide.payload[0]!.parameters).not.toHaveProperty('$schema');
    expect(wide.payload[0]!.parameters).not.toHaveProperty('additionalProperties');
    expect(wide.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('works without a config file (defaults) and with a domain filter', async () => {
    const project = await materialize(null, 'no-config');
    disposers.push(project.dispose);
    const { rm } = await import('node:fs/promises');
    await rm(join(project.root, 'toolmark.config.yaml'));
    const loaded = await loadProject(project.root, { domains: ['notes'] });
    expect(loaded.configFile).toBeNull();
    expect(loaded.config.run).toMatchObject({ trials: 3, concurrency: 8, split: 'all', providers: ['replay'] });
    const issues = await failure(loadProject(project.root, { domains: ['note'] }));
    expect(issues).toEqual([
      '(command line): domain: unknown domain "note" (expected one of notes); did you mean notes?',
    ]);
  });
});

describe('loadProject on bad input', () => {
  it('collects every issue across files into one error, sorted by file and line', async () => {
    const project = await materialize(join(FIXTURES, 'negative', 'unknown-action'), 'many');
    disposers.push(project.dispose);
    const { cp } = await import('node:fs/promises');
    await cp(join(FIXTURES, 'negative', 'unknown-parent'), project.root, { recursive: true });
    await cp(join(FIXTURES, 'negative', 'bad-config'), project.root, { recursive: true });
    const issues = await failure(loadProject(project.root));
    expect(issues).toHaveLength(3);
    expect(issues[0]).toMatch(/^suites\/notes\/surfaces\/orphan\.yaml:2:10: /);
    expect(issues[1]).toMatch(/^suites\/notes\/tasks\/unknown-action\.yaml:7:15: /);
    expect(issues[2]).toMatch(/^toolmark\.config\.yaml:4:3: /);
  });

  it('refuses files over the size limit before parsing them', async () => {
    const project = await materialize(null, 'huge');
    disposers.push(project.dispose);
    const big = `# ${'x'.repeat(MAX_FILE_BYTES)}\ntasks: []\n`;
    await writeFile(join(project.root, 'suites/notes/tasks/huge.yaml'), big);
    const issues = await failure(loadProject(project.root));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^suites\/notes\/tasks\/huge\.yaml: file is 5\.\d MB, larger than the 5 MB limit/);
  });

  it('reports a domain module that does not import, without a stack trace', async () => {
    const project = await projectWith(
      { 'suites/broken/domain.ts': "throw new Error('boom at import');\n" },
      'bad-domain',
    );
    disposers.push(project.dispose);
    await writeFile(join(project.root, 'toolmark.config.yaml'), 'domains: [notes, broken]\n');
    const issues = await failure(loadProject(project.root));
    // Issue 14 item 9: file:line, the message and the offending line, in one block.
    expect(issues).toEqual([
      // The throw's own frame (line and column), as for a domain outside node_modules (issue 17: fixtures live under node_modules/.cache).
      "suites/broken/domain.ts:1:7: could not import the domain module: Error: boom at import\n  1 | throw new Error('boom at import');\n    |       ^",
    ]);
  });

  it('rejects an expectation that contradicts the kind', async () => {
    const project = await projectWith(
      {
        'suites/notes/tasks/kinds.yaml': [
          'tasks:',
          '  - { id: k1, kind: must-call, messages: [{ role: user, content: hi }], expect: { evidence: [x] } }',
          '  - { id: k2, kind: multi-step, messages: [{ role: user, content: hi }], expect: { evidence: [x] } }',
          '  - { id: k3, kind: similar-tool, messages: [{ role: user, content: hi }], expect: { action: note.get } }',
          '  - { id: k4, kind: must-call, messages: [{ role: user, content: hi }], expect: { action: note.get, abstain: true } }',
          '',
        ].join('\n'),
      },
      'kinds',
    );
    disposers.push(project.dispose);
    const issues = await failure(loadProject(project.root));
    expect(issues).toEqual([
      'suites/notes/tasks/kinds.yaml:2:81: tasks[0].expect: a must-call task needs expect.action (or expect.any_of)',
      'suites/notes/tasks/kinds.yaml:3:82: tasks[1].expect: a multi-step task needs expect.sequence (or expect.final_state)',
      'suites/notes/tasks/kinds.yaml:4:84: tasks[2].expect: a similar-tool task names its near-synonym distractors in expect.distractors',
      'suites/notes/tasks/kinds.yaml:5:81: tasks[3].expect: expect gives action and abstain; give only one of action, abstain, any_of, sequence',
    ]);
  });
});
