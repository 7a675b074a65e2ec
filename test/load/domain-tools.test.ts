import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { createDomainRegistry, MemoryReceiptStore } from '../../src/registry/index.ts';
import { ConfigError, formatConfigIssue } from '../../src/spec/index.ts';
import { projectWith } from './materialize.ts';

/**
 * User domains written with zod 3 and plain JSON Schema, loaded as a user's
 * project would be, and the load errors a domain author gets: file:line of
 * the `defineTool` call, the field, and what was expected.
 */

const REGISTRY = '../../../../../src/registry/index.ts';

/** The notes domain of project-basic, rewritten: `tools` is spliced in, the rest stays valid. */
function notesDomain(tools: string, extra: { errors?: string; imports?: string } = {}): string {
  return `import { z } from 'zod3';
import { defineDomain, defineTool, fromJsonSchema } from '${REGISTRY}';
${extra.imports ?? ''}
const noteOutput = { type: 'object', properties: { id: { type: 'string' }, lines: { type: 'array', items: { type: 'string' } } }, required: ['id', 'lines'] } as const;
const read = { timeout_ms: 1_000 };
export default defineDomain<{ notes: Map<string, string[]> }>({
  name: 'notes',
  description: 'Notes, in zod 3 and JSON Schema',
  actions: [
    { id: 'note.get', description: 'Read a note', effect: 'read', permission: 'note:read', approval: 'never', idempotency_key: null },
    { id: 'note.list', description: 'List notes', effect: 'read', permission: 'note:read', approval: 'never', idempotency_key: null },
    { id: 'note.preview', description: 'Preview an append', effect: 'read', permission: 'note:read', approval: 'never', idempotency_key: null },
    { id: 'note.append', description: 'Append a line', effect: 'write', permission: 'note:write', approval: 'required', idempotency_key: 'action_id', preview: 'note.preview' },
    { id: 'note.archive', description: 'Archive a note (no narrow tool)', effect: 'destructive', permission: 'note:write', approval: 'required', idempotency_key: null },
  ],
  tools: [
${tools}
  ],
  ${extra.errors ?? ''}
  createState: () => ({ notes: new Map([['N-1', ['first']]]) }),
  views: {
    line_count: (state) => [...state.notes.values()].reduce((sum, lines) => sum + lines.length, 0),
    notes: (state) => Object.fromEntries(state.notes),
  },
});
`;
}

const GET = `    defineTool({
      name: 'note.get',
      description: 'Read one note by id.',
      input: z.object({ note_id: z.string().regex(/^N-\\d+$/).describe('Note id such as N-1') }).strict(),
      output: noteOutput,
      runtime: read,
      handler: (input, context) => ({ id: input.note_id, lines: context.state.notes.get(input.note_id) ?? [] }),
    }),`;
const LIST = `    defineTool({
      name: 'note.list',
      description: 'List notes.',
      input: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 5, default: 5 }, filter: { type: 'object', properties: { tag: { type: 'string' }, owner: { type: 'object', properties: { email: { type: 'string' } } } } } } },
      output: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } }, required: ['ids'] },
      handler: (input, context) => ({ ids: [...context.state.notes.keys()].slice(0, input.limit) }),
    }),`;
const PREVIEW = `    defineTool({
      name: 'note.preview',
      description: 'Preview appending a line.',
      input: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { note_id: { type: 'string' }, line: { type: 'string' } }, required: ['note_id', 'line'] },
      output: z.object({ preview: z.string() }),
      handler: (input) => ({ preview: \`\${input.note_id}: \${input.line}\` }),
    }),`;
const APPEND = `    defineTool({
      name: 'note.append',
      description: 'Append a line to a note.',
      input: z.object({ note_id: z.string(), line: z.string(), action_id: z.string() }),
      output: noteOutput,
      handler: (input, context) => {
        const lines = [...(context.state.notes.get(input.note_id) ?? []), input.line];
        context.state.notes.set(input.note_id, lines);
        context.recordEffect({ action: 'note.append', effect: 'write', target: input.note_id, change_id: input.action_id });
        return { id: input.note_id, lines };
      },
    }),`;
const WIDE = `    defineTool({
      name: 'note.operation',
      description: 'Do anything with notes.',
      input: z.object({ operation: z.string(), payload: z.record(z.string(), z.unknown()) }),
      output: {},
      runtime: { permission: null, effect: 'read', timeout_ms: 1_000 },
      handler: () => ({ ok: true }),
    }),`;
const ALL = [GET, LIST, PREVIEW, APPEND, WIDE];

/** A task whose fault names a code nobody declares (a typo of note_locked). */
const FAULT_TASK =
  'v: 1\ntasks:\n  - id: locked\n    kind: must-call\n    messages: [{ role: user, content: "Read N-1" }]\n    actor: { permissions: [note:read] }\n    expect: { action: note.get }\n    faults:\n      - { action: note.get, on_call: 1, error: note_lockd }\n';

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(disposers.map((dispose) => dispose()));
});

async function load(files: Record<string, string>, name: string) {
  const project = await projectWith(files, name);
  disposers.push(project.dispose);
  return loadProject(project.root);
}

async function loadIssues(files: Record<string, string>, name: string): Promise<string[]> {
  const error = await load(files, name).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error.issues.map(formatConfigIssue);
}

/** The line of the n-th `defineTool(` in a domain text (1-based lines). */
function lineOf(text: string, needle: string): number {
  return text.slice(0, text.indexOf(needle)).split('\n').length;
}

describe('a user domain in zod 3 and JSON Schema', () => {
  it('loads, shows the model each schema as written, and validates through the registry', async () => {
    const project = await load({ 'suites/notes/domain.ts': notesDomain(ALL.join('\n')) }, 'flavours');
    const domain = project.domains[0]!;
    const typed = domain.surfaces.find((surface) => surface.id === 'typed')!;
    const parameters = Object.fromEntries(typed.tools.map((tool) => [tool.tool, tool.parameters]));
    expect(parameters['note.get']).toEqual({
      type: 'object',
      properties: { note_id: { type: 'string', pattern: '^N-\\d+$', description: expect.any(String) } },
      required: ['note_id'],
      additionalProperties: false,
    });
    // The draft-07 schema as written, less $schema (and strict, as the surface asks).
    expect(parameters['note.preview']).toEqual({
      type: 'object',
      properties: { note_id: { type: 'string' }, line: { type: 'string' } },
      required: ['note_id', 'line'],
      additionalProperties: false,
    });

    const registry = createDomainRegistry(domain.domain);
    const context = {
      state: await domain.domain.createState(),
      actor: { id: 'u', permissions: ['note:read'] },
      approvals: [],
      effects: [],
      receipts: new MemoryReceiptStore(),
    };
    // A zod 3 schema used to crash validate ("reading 'def'"); now it is a structured error.
    const bad = await registry.invoke({ tool: 'note.get', arguments: { note_id: 7 } }, context);
    expect(bad).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_arguments',
        details: { violations: [{ path: 'note_id', message: 'Expected string, received number' }] },
      },
    });
    expect(await registry.invoke({ tool: 'note.list', arguments: {} }, context)).toEqual({
      ok: true,
      output: { ids: ['N-1'] },
      replayed: false,
    });
    const listBad = await registry.invoke({ tool: 'note.list', arguments: { limit: 9 } }, context);
    expect(listBad).toMatchObject({
      ok: false,
      error: { details: { violations: [{ path: '/limit', message: 'must be <= 5' }] } },
    });
    // The contract comes from the action: a write without note:write is refused.
    const write = await registry.invoke(
      { tool: 'note.append', arguments: { note_id: 'N-1', line: 'x', action_id: 'a-1' } },
      context,
    );
    expect(write).toMatchObject({
      ok: false,
      error: { code: 'permission_denied', details: { required_permission: 'note:write' } },
    });
  });
});

describe("load errors on a domain's tools", () => {
  it('a tool contradicting its action: file:line of its defineTool call, the field, what the action declares', async () => {
    const tools = [
      GET.replace('runtime: read,', "runtime: { ...read, permission: 'note:write' },"),
      LIST,
      PREVIEW,
      APPEND,
      WIDE,
    ].join('\n');
    const text = notesDomain(tools);
    const issues = await loadIssues({ 'suites/notes/domain.ts': text }, 'contradiction');
    expect(issues).toEqual([
      `suites/notes/domain.ts:${lineOf(text, "    defineTool({\n      name: 'note.get'")}: tools[0].runtime.permission: "note:write" contradicts its action "note.get", which declares "note:read"; the contract is declared once, on the action (expected "note:read", or no permission here)`,
    ]);
  });

  it('a JSON Schema with a typo, an unknown $schema, a schema of no known kind', async () => {
    const tools = [
      GET,
      LIST.replace('properties: { limit:', "requried: ['limit'], properties: { limit:"),
      PREVIEW.replace('http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-04/schema#'),
      APPEND.replace('output: noteOutput,', "output: 'a note',"),
      WIDE,
    ].join('\n');
    const text = notesDomain(tools);
    const issues = await loadIssues({ 'suites/notes/domain.ts': text }, 'bad-schemas');
    const at = (name: string) => `suites/notes/domain.ts:${lineOf(text, `    defineTool({\n      name: '${name}'`)}`;
    expect(issues).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${at('note.list')}: tools\\[1\\]\\.input: invalid JSON Schema \\(2020-12\\): strict mode: unknown keyword: "requried"`,
        ),
      ),
      `${at('note.preview')}: tools[2].input: unsupported $schema "http://json-schema.org/draft-04/schema#" (expected https://json-schema.org/draft/2020-12/schema (the default), https://json-schema.org/draft/2019-09/schema or http://json-schema.org/draft-07/schema#)`,
      `${at('note.append')}: tools[3].output: is string, not a schema (expected a zod 4 schema, a zod 3 schema, a JSON Schema object ({ "type": "object", … }) or a ToolSchema)`,
    ]);
  });

  it('an unknown action, an idempotency key the input lacks, a bad runtime field', async () => {
    const tools = [
      GET.replace("name: 'note.get',", "name: 'note.get',\n      action: 'note.gett',"),
      LIST.replace('handler:', 'runtime: { timeout_ms: -1 },\n      handler:'),
      PREVIEW,
      APPEND.replace('action_id: z.string() })', 'key: z.string() })').replace(
        'change_id: input.action_id',
        'change_id: input.key',
      ),
      WIDE,
    ].join('\n');
    const text = notesDomain(tools);
    const issues = await loadIssues({ 'suites/notes/domain.ts': text }, 'bad-tools');
    const at = (name: string) => `suites/notes/domain.ts:${lineOf(text, `    defineTool({\n      name: '${name}'`)}`;
    expect(issues).toEqual([
      `${at('note.get')}: tools[0].action: unknown action "note.gett" (expected an action of domain notes); did you mean note.get?`,
      `${at('note.list')}: tools[1].runtime.timeout_ms: Too small: expected number to be >0 (expected timeout_ms: an integer from 1 to 86400000 (24 h); retry: { transient: boolean, max_attempts: integer from 1 to 100 })`,
      `${at('note.append')}: tools[3].input: has no field "action_id", the idempotency key its action "note.append" declares (expected an input field named action_id)`,
    ]);
  });

  it('an error table entry without a category, a framework code redefined (the domain then loads no further)', async () => {
    const text = notesDomain(ALL.join('\n'), {
      errors:
        "errors: { note_locked: { category: 'conflict' }, note_gone: { category: 'missing' }, tool_timeout: { category: 'internal' } } as never,",
    });
    const issues = await loadIssues(
      {
        'suites/notes/domain.ts': text,
        'suites/notes/tasks/fault.yaml': FAULT_TASK,
      },
      'errors',
    );
    const domainAt = `suites/notes/domain.ts:${lineOf(text, 'export default defineDomain')}`;
    expect(issues).toEqual([
      `${domainAt}: errors.note_gone: error code "note_gone" has no valid category (expected { category: one of validation, policy, not_found, conflict, dependency, internal, routing, retryable?: boolean })`,
      `${domainAt}: errors.tool_timeout: "tool_timeout" is one of toolmark's own codes (category dependency, retryable true) and cannot be redefined (expected a code of the domain's own, or leave it out (framework codes need no declaration))`,
    ]);
  });

  it('a fault code nobody declares is an error at its YAML line', async () => {
    const text = notesDomain(ALL.join('\n'), { errors: "errors: { note_locked: { category: 'conflict' } }," });
    const issues = await loadIssues(
      {
        'suites/notes/domain.ts': text,
        'suites/notes/tasks/fault.yaml': FAULT_TASK,
      },
      'fault-code',
    );
    expect(issues).toEqual([
      expect.stringMatching(
        /^suites\/notes\/tasks\/fault\.yaml:9:\d+: tasks\[0\]\.faults\[0\]\.error: error code "note_lockd" is declared neither by toolmark nor by domain notes \(expected a framework code or one of the domain's errors \(note_locked\)\); did you mean note_locked\?$/,
      ),
    ]);
  });
});
