import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { main } from '../../src/cli/main.ts';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import { alive } from '../helpers/slow-chat-server.ts';
import type { Task } from '../../src/spec/index.ts';

// Through the official SDK against the real reference servers (spawned here).
// Starting a server takes about half a second on a quiet machine and much
// longer on a busy one: the limits around process starts are generous.
const REPO = resolve(import.meta.dirname, '../..');
const EXAMPLE = join(REPO, 'examples/mcp');
const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const SLOW = 180_000;

let files: LoadedDomain;
let memory: LoadedDomain;
const scratch: string[] = [];

beforeAll(async () => {
  const project = await loadProject(EXAMPLE);
  files = project.domains.find((domain) => domain.name === 'files')!;
  memory = project.domains.find((domain) => domain.name === 'memory')!;
});
afterAll(async () => {
  await files?.domain.close?.();
  await memory?.domain.close?.();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function task(domain: LoadedDomain, id: string, edit: Partial<Task> = {}): Task {
  return { ...domain.tasks.find((candidate) => candidate.id === id)!, ...edit };
}

describe('toolmark import mcp (the real filesystem server)', () => {
  it(
    'writes a domain, the tools exactly as listed, and a contract proposed from hints',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'toolmark-import-'));
      scratch.push(root);
      const code = await main(['import', 'mcp', '--name', 'fs', '--root', root, '--', 'node', FILESYSTEM, '{workdir}']);
      expect(code).toBe(0);
      const listed = JSON.parse(readFileSync(join(root, 'suites/fs/tools.json'), 'utf8')) as {
        tools: Array<{ name: string; annotations?: object }>;
      };
      expect(listed.tools).toHaveLength(14);
      expect(listed.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining([
          'read_file',
          'read_text_file',
          'read_multiple_files',
          'write_file',
          'edit_file',
          'list_directory',
          'directory_tree',
          'search_files',
        ]),
      );
      // Exactly as the shipped example's import of the same server version.
      expect(listed).toEqual(JSON.parse(readFileSync(join(EXAMPLE, 'suites/files/tools.json'), 'utf8')));
      const domainYaml = readFileSync(join(root, 'suites/fs/domain.yaml'), 'utf8');
      expect(domainYaml).toContain(
        '  - id: fs.write_file\n    from: write_file\n    effect: destructive            # hint: destructiveHint: true, idempotentHint: true\n    permission: fs:write\n    approval: required\n    idempotency_key: null\n    reviewed: false\n',
      );
      expect(domainYaml).toContain('effect: read            # hint: readOnlyHint: true');
      expect(readFileSync(join(root, 'suites/fs/surfaces/imported.yaml'), 'utf8')).toContain(
        '  - action: fs.read_text_file\n    name: read_text_file\n',
      );
      // The import validates as it stands.
      const loaded = await loadProject(root);
      expect(loaded.domains[0]!.surfaces[0]!.payload).toHaveLength(14);
    },
    SLOW,
  );

  it('validates the shipped MCP example without starting a server', async () => {
    expect(files.domain.actions).toHaveLength(14);
    expect(memory.domain.actions).toHaveLength(9);
    expect(files.surfaces.map((surface) => surface.id).sort()).toEqual(['described-v2', 'imported']);
  });
});

describe('an MCP domain at run time', () => {
  it(
    'an isError result reaches the model as a structured tool error',
    async () => {
      const provider = new ScriptedProvider([
        callTurn('read_text_file', { path: '/workspace/notes/ideas.txt' }),
        textTurn('That file does not exist.'),
      ]);
      const record = await runTrial({
        provider,
        domain: files.domain,
        surface: files.surfaces.find((surface) => surface.id === 'imported')!,
        task: task(files, 'files-call-missing-file'),
        trial: 0,
      });
      expect(record.status).toBe('completed');
      const outcome = record.calls[0]!.outcome;
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.error).toMatchObject({ code: 'tool_failed', category: 'dependency', retryable: false });
      expect(outcome.error.message).toContain('ENOENT');
      // The model sees the path it used, never the trial's temporary folder.
      expect(outcome.error.message).toContain('/workspace/notes/ideas.txt');
      expect(outcome.error.message).not.toContain(tmpdir());
      const toolMessage = provider.requests[1]!.request.messages.find((message) => message.role === 'tool')!;
      expect(toolMessage).toMatchObject({ is_error: true });
      expect(JSON.parse((toolMessage as { content: string }).content)).toMatchObject({ code: 'tool_failed' });
    },
    SLOW,
  );

  it(
    'a write blocked by the registry never reaches the server: its own tree shows no file',
    async () => {
      const provider = new ScriptedProvider([
        callTurn('write_file', { path: '/workspace/notes/hacked.txt', content: 'x' }),
        textTurn('I need your approval first.'),
      ]);
      const record = await runTrial({
        provider,
        domain: files.domain,
        surface: files.surfaces[0]!,
        task: task(files, 'files-multi-blocked-overwrite'),
        trial: 0,
      });
      expect(record.calls[0]!.outcome).toMatchObject({ ok: false, error: { code: 'approval_required' } });
      expect(record.effects).toEqual([]);
      // final_state.tree is the server's own directory_tree at the end of the trial.
      expect(String(record.final_state.tree)).toContain('todo.txt');
      expect(String(record.final_state.tree)).not.toContain('hacked.txt');
    },
    SLOW,
  );

  it(
    'an approved write does reach the server, and the next trial starts from the seed again',
    async () => {
      const approved = task(files, 'files-multi-summary-file');
      const write = await runTrial({
        provider: new ScriptedProvider([
          callTurn('write_file', { path: '/workspace/notes/summary.txt', content: 'Q3 revenue: 1.2M EUR' }),
          textTurn('saved'),
        ]),
        domain: files.domain,
        surface: files.surfaces[0]!,
        task: approved,
        trial: 0,
      });
      expect(write.calls[0]!.outcome).toMatchObject({ ok: true });
      expect(write.effects).toEqual([
        expect.objectContaining({
          action: 'files.write_file',
          effect: 'destructive',
          target: '/workspace/notes/summary.txt',
          authorized: true,
        }),
      ]);
      expect(String(write.final_state.tree)).toContain('summary.txt');
      const next = await runTrial({
        provider: new ScriptedProvider([textTurn('nothing to do')]),
        domain: files.domain,
        surface: files.surfaces[0]!,
        task: approved,
        trial: 1,
      });
      expect(String(next.final_state.tree)).not.toContain('summary.txt');
    },
    SLOW,
  );

  it(
    'memory: each trial has its own MEMORY_FILE_PATH; an entity created in one is absent from the next',
    async () => {
      const surface = memory.surfaces.find((candidate) => candidate.id === 'imported')!;
      const create = { entities: [{ name: 'Carol', entityType: 'person', observations: [] }] };
      const results = await Promise.all(
        [0, 1].map((trial) =>
          runTrial({
            provider: new ScriptedProvider(
              trial === 0
                ? [callTurn('create_entities', create), textTurn('added')]
                : [callTurn('read_graph', {}), textTurn('read')],
            ),
            domain: memory.domain,
            surface,
            task: task(memory, 'memory-similar-new-carol'),
            trial,
          }),
        ),
      );
      expect(results[0]!.final_state.entity_names).toEqual(['Alice', 'Acme', 'Bob', 'Carol']);
      expect(results[1]!.final_state.entity_names).toEqual(['Alice', 'Acme', 'Bob']);
      expect(JSON.stringify(results[1]!.calls[0]!.outcome)).not.toContain('Carol');
    },
    SLOW,
  );

  it(
    'a server that cannot start makes the trial errored, never a model miss',
    async () => {
      const broken = await loadProject(EXAMPLE, { domains: ['memory'] });
      const domain = broken.domains[0]!;
      const pool = domain.domain as { createState(): Promise<unknown> };
      // Same domain, a server command that exits at once.
      const { mcpDomain } = await import('../../src/domains/mcp/mcp-domain.ts');
      const { McpServerConfig } = await import('../../src/domains/mcp/server-config.ts');
      void pool;
      const dead = mcpDomain(
        {
          name: 'memory',
          description: '',
          kind: 'mcp',
          errors: {},
          store: {},
          views: {},
          actions: [
            {
              id: 'memory.read_graph',
              from: 'read_graph',
              effect: 'read',
              permission: null,
              approval: 'never',
              idempotency_key: null,
              timeout_ms: 5000,
              transient: false,
              reviewed: true,
              responses: [],
            },
          ],
        },
        McpServerConfig.parse({ command: 'node', args: ['-e', 'process.exit(3)'], start_timeout_ms: 60_000 }),
        EXAMPLE,
        [],
        new Map([
          [
            'memory.read_graph',
            {
              description: '',
              input: { jsonSchema: {}, validate: (value: unknown) => ({ ok: true as const, value }) },
              output: null,
            },
          ],
        ]),
      );
      const record = await runTrial({
        provider: new ScriptedProvider([textTurn('never asked')]),
        domain: dead,
        surface: domain.surfaces[0]!,
        task: domain.tasks[0]!,
        trial: 0,
      });
      expect(record.status).toBe('errored');
      expect(record.error?.message).toContain('did not start');
      expect(record.turns).toEqual([]);
    },
    SLOW,
  );

  it(
    'closes every server at the end: no process outlives the domain',
    async () => {
      const surface = memory.surfaces[0]!;
      const pids: number[] = [];
      const spy = new ScriptedProvider(async () => textTurn('ok'));
      const states = await Promise.all(
        [0, 1].map(() => memory.domain.createState() as Promise<{ lease: { session: { pid: number | null } } }>),
      );
      for (const state of states) pids.push(state.lease.session.pid!);
      expect(pids.every(alive)).toBe(true);
      await memory.domain.close!();
      await expect.poll(() => pids.filter(alive), { timeout: 30_000 }).toEqual([]);
      void spy;
      void surface;
    },
    SLOW,
  );
});

describe('a server whose tools changed since the import', () => {
  it(
    'changes the surface hash (cassettes go stale) and refuses to run against the changed server',
    async () => {
      const cache = join(REPO, 'node_modules/.cache');
      mkdirSync(cache, { recursive: true });
      const root = mkdtempSync(join(cache, 'toolmark-mcp-changed-'));
      scratch.push(root);
      cpSync(join(EXAMPLE, 'suites/memory'), join(root, 'suites/memory'), { recursive: true });
      rmSync(join(root, 'suites/memory/cassettes'), { recursive: true });
      const toolsFile = join(root, 'suites/memory/tools.json');
      const listed = JSON.parse(readFileSync(toolsFile, 'utf8'));
      listed.tools.find((tool: { name: string }) => tool.name === 'read_graph').description =
        'Read the whole graph (as the server said last month).';
      writeFileSync(toolsFile, JSON.stringify(listed, null, 2));
      const changed = (await loadProject(root)).domains[0]!;
      const imported = (id: string, domain: LoadedDomain) => domain.surfaces.find((surface) => surface.id === id)!;
      expect(imported('imported', changed).hash).not.toBe(imported('imported', memory).hash);
      const record = await runTrial({
        provider: new ScriptedProvider([textTurn('never asked')]),
        domain: changed.domain,
        surface: imported('imported', changed),
        task: changed.tasks[0]!,
        trial: 0,
      });
      await changed.domain.close?.();
      expect(record.status).toBe('errored');
      expect(record.error?.message).toContain('tool read_graph: description differs');
    },
    SLOW,
  );

  it('an output schema or annotation change alone (invisible to the model) still changes the surface hash', async () => {
    const cache = join(REPO, 'node_modules/.cache');
    const root = mkdtempSync(join(cache, 'toolmark-mcp-hint-'));
    scratch.push(root);
    cpSync(join(EXAMPLE, 'suites/memory'), join(root, 'suites/memory'), { recursive: true });
    rmSync(join(root, 'suites/memory/cassettes'), { recursive: true });
    const toolsFile = join(root, 'suites/memory/tools.json');
    const listed = JSON.parse(readFileSync(toolsFile, 'utf8'));
    listed.tools.find((tool: { name: string }) => tool.name === 'read_graph').annotations.readOnlyHint = false;
    writeFileSync(toolsFile, JSON.stringify(listed, null, 2));
    const changed = (await loadProject(root)).domains[0]!;
    const before = memory.surfaces.find((surface) => surface.id === 'imported')!;
    const after = changed.surfaces.find((surface) => surface.id === 'imported')!;
    expect(after.payload).toEqual(before.payload);
    expect(after.hash).not.toBe(before.hash);
  });
});

describe('toolmark run on the MCP example', () => {
  it('replays the synthetic cassette against the real servers: no stale turns, no errored trials', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolmark-mcp-run-'));
    scratch.push(out);
    const code = await main([
      'run',
      '--root',
      EXAMPLE,
      '--task',
      'memory-call-*',
      '--out',
      out,
      '--run-id',
      'mcp',
      '--concurrency',
      '2',
    ]);
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'mcp/summary.json'), 'utf8'));
    const all = summary.groups.find(
      (group: { kind: string; split: string; surface: string }) =>
        group.kind === 'all' && group.split === 'all' && group.surface === 'imported',
    );
    expect(all.errored ?? 0).toBe(0);
    expect(all.task_success.value).toBe(1);
    expect(existsSync(join(out, 'mcp/report.md'))).toBe(true);
  }, 600_000);
});
