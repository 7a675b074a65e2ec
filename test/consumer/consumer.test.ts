/**
 * The package as an adopting team gets it: `npm pack`, then install the
 * tarball into a fresh project with its own suites/, once with zod 3 and
 * once with zod 4 as the project's zod, and go from `toolmark init` to a
 * first `compare` with no key. Also compiles a domain against the packed
 * package's types (the public API, nothing under src/).
 *
 * The tarball is local and every dependency tarball comes from the npm cache
 * that `npm ci` of this repository filled (`--prefer-offline`); only package
 * metadata the cache lacks (npm ci stores tarballs, not version lists) is
 * asked of the npm registry, as .ci/run allows. The time
 * limits bound a build, two installs and a dozen process starts on a loaded
 * machine; nothing here waits on a clock.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { REPO_ROOT, cleanEnv } from '../helpers/cli.ts';

const exec = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'toolmark-consumer-'));
let tarball: string;

const versionOf = (name: string) =>
  (JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
const ZOD = { 3: versionOf('zod3'), 4: versionOf('zod') };

async function sh(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await exec(command, args, { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return {
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
      code: typeof failed.code === 'number' ? failed.code : 1,
    };
  }
}

const npm = (args: string[], cwd: string) => sh('npm', [...args, '--no-audit', '--no-fund'], cwd);
const toolmark = (args: string[], cwd: string) =>
  sh(process.execPath, [path.join(cwd, 'node_modules/toolmark/bin/toolmark.js'), ...args], cwd);

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'find_events',
      description: 'Find calendar events on a day.',
      parameters: {
        type: 'object',
        properties: { day: { type: 'string', format: 'date' } },
        required: ['day'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_event',
      description: 'Read one calendar event by ID.',
      parameters: {
        type: 'object',
        properties: { event_id: { type: 'string' } },
        required: ['event_id'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'create_event',
      description: 'Create a calendar event.',
      parameters: {
        type: 'object',
        properties: { title: { type: 'string' }, day: { type: 'string', format: 'date' } },
        required: ['title', 'day'],
        additionalProperties: false,
      },
    },
  },
];

beforeAll(async () => {
  const packed = await npm(['pack', '--pack-destination', work, '--json'], REPO_ROOT);
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = path.join(work, info!.filename);
  // What the package holds: compiled code, docs, the example's sources; no tests, no cassettes.
  const files = info!.files.map((file) => file.path);
  expect(files.filter((file) => /(^|\/)test\/|\.test\.|cassettes\//.test(file))).toEqual([]);
  expect(files).toContain('dist/src/index.js');
  expect(files).toContain('dist/src/index.d.ts');
  expect(files.some((file) => file.startsWith('src/'))).toBe(false);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

// The two projects are independent, so they install and run side by side (this
// file is the suite's long pole); the steps of one project build on each other
// and stay in order.
describe.concurrent.each([3, 4] as const)('a project with zod %i', (zod) => {
  const it = test.sequential;
  const project = path.join(work, `project-zod${zod}`);

  beforeAll(async () => {
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'package.json'),
      `${JSON.stringify({ name: `calendar-zod${zod}`, version: '1.0.0', private: true }, null, 2)}\n`,
    );
    const installed = await npm(
      [
        'install',
        '--prefer-offline',
        '--ignore-scripts',
        tarball,
        `zod@${ZOD[zod]}`,
        `typescript@${versionOf('typescript')}`,
        `@types/node@${versionOf('@types/node')}`,
      ],
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    writeFileSync(path.join(project, 'tools.json'), JSON.stringify(TOOLS, null, 2));
  }, 600_000);

  it('init --from-openai, validate, run and compare with no key', async () => {
    const init = await toolmark(['init', '--from-openai', 'tools.json', '--name', 'calendar'], project);
    expect(init.code, init.stderr).toBe(0);
    for (const file of [
      'toolmark.config.yaml',
      'suites/calendar/domain.ts',
      'suites/calendar/surfaces/v1.yaml',
      'suites/calendar/tasks/starter.yaml',
      'heldout/calendar/tasks/starter.yaml',
      'suites/calendar/cassettes/starter.jsonl',
      '.github/workflows/toolmark.yml',
    ]) {
      expect(existsSync(path.join(project, file)), file).toBe(true);
    }
    const domain = readFileSync(path.join(project, 'suites/calendar/domain.ts'), 'utf8');
    expect(domain).toContain("from 'toolmark'");
    expect(domain).toContain('effect: "write"');

    // The team's own zod on one tool: the seam adapts whichever version the project has.
    const withZod = domain
      .replace("from 'toolmark';", "from 'toolmark';\nimport { z } from 'zod';")
      .replace(
        /input: \{\s+"type": "object",\s+"properties": \{\s+"event_id": \{\s+"type": "string"\s+\}\s+\},\s+"required": \[\s+"event_id"\s+\],\s+"additionalProperties": false\s+\}/,
        'input: z.object({ event_id: z.string() }).strict()',
      );
    expect(withZod).toContain('z.object({ event_id');
    writeFileSync(path.join(project, 'suites/calendar/domain.ts'), withZod);
    const zodInstalled = JSON.parse(readFileSync(path.join(project, 'node_modules/zod/package.json'), 'utf8'))
      .version as string;
    expect(zodInstalled.startsWith(`${zod}.`)).toBe(true);

    const validate = await toolmark(['validate'], project);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('domain calendar: 3 actions, 1 surfaces, 8 tasks');

    for (const id of ['first', 'second']) {
      const run = await toolmark(['run', '--run-id', id], project);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`run ${id}: 24 trials run`);
      for (const file of ['manifest.json', 'trials.jsonl', 'summary.json', 'report.md', 'report.html', 'junit.xml'])
        expect(existsSync(path.join(project, 'results', id, file)), file).toBe(true);
    }
    const summary = JSON.parse(readFileSync(path.join(project, 'results/first/summary.json'), 'utf8')) as {
      groups: { split: string; kind: string; task_success: { value: number; n: number } }[];
    };
    const all = summary.groups.find((group) => group.split === 'all' && group.kind === 'all')!;
    // The starter cassette answers every task as expected: a pipeline check, not a model's score.
    expect(all.task_success).toMatchObject({ value: 1, n: 24 });

    const compare = await toolmark(['compare', 'results/first', 'results/second'], project);
    expect(compare.code, compare.stderr).toBe(0);
    expect(compare.stdout).toContain('Noise floor (A/A)');
  }, 600_000);

  it('a syntax error in the domain is shown in full: file:line:col, the line, the message; exit 2', async () => {
    // A project of its own inside this one (the config here names only calendar); it finds toolmark in node_modules above.
    const broken = path.join(project, 'broken');
    const file = path.join(broken, 'suites/broken/domain.ts');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(path.join(broken, 'suites/package.json'), '{"type": "module"}\n');
    writeFileSync(
      file,
      "import { defineDomain } from 'toolmark';\nexport default defineDomain({\n  name 'broken',\n});\n",
    );
    const validate = await toolmark(['validate', '--root', 'broken'], project);
    rmSync(broken, { recursive: true, force: true });
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain(
      'suites/broken/domain.ts:3:8: could not import the domain module: Expected "}" but found "\'broken\'"',
    );
    expect(validate.stderr).toContain("  3 |   name 'broken',");
    expect(validate.stderr).toContain('    |        ^');
  }, 300_000);

  it('a domain type-checks against the packed package (public API only)', async () => {
    const file = path.join(project, 'typed-domain.ts');
    writeFileSync(
      file,
      `import { defineDomain, defineToolFor, fail, toolErrorFor, type ActionSpec, type Provider, type TrialRecord } from 'toolmark';
import { z } from 'zod';
interface State { notes: Map<string, string> }
const actions: ActionSpec[] = [{ id: 'notes.get', description: 'Read a note.', effect: 'read', permission: null, approval: 'never', idempotency_key: null }];
const errors = { note_not_found: { category: 'not_found' } } as const;
const toolError = toolErrorFor(errors);
const tool = defineToolFor<State>();
const get = tool({
  name: 'notes.get',
  description: 'Read a note by ID.',
  input: z.object({ id: z.string() }),
  output: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  handler(input, { state }) {
    const id: string = input.id; // typed from the zod schema
    const text = state.notes.get(id);
    return text === undefined ? fail(toolError('note_not_found', 'No such note.', { id })) : { text };
  },
});
export default defineDomain<State>({ name: 'notes', description: 'Notes.', actions, errors, tools: [get], createState: () => ({ notes: new Map() }), views: { count: (state) => state.notes.size } });
export const provider: Provider = { id: 'mine', model: 'm', async propose() { return { text: 'hi', tool_calls: [], usage: { input_tokens: 0, output_tokens: 0 }, latency_ms: 0, finish_reason: 'stop', warnings: [] }; } };
export const successOf = (record: TrialRecord) => record.success;
// @ts-expect-error -- a code neither toolmark nor the domain declares
toolError('note_gone', 'Gone.');
`,
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['typed-domain.ts'],
      }),
    );
    const checked = await sh(
      process.execPath,
      [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', project],
      project,
    );
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  }, 300_000);
});

describe('toolmark init --example', () => {
  it('writes the shipped example with generated synthetic cassettes, and it validates', async () => {
    const project = path.join(work, 'project-zod4');
    const target = path.join(project, 'example');
    const init = await toolmark(['init', '--example', 'example'], project);
    expect(init.code, init.stderr).toBe(0);
    expect(readdirSync(path.join(target, 'suites/tickets/cassettes')).sort()).toEqual([
      'synthetic-careful.jsonl',
      'synthetic-hasty.jsonl',
      'synthetic-sloppy.jsonl',
    ]);
    // Generated here byte for byte as shipped in the repository.
    expect(readFileSync(path.join(target, 'suites/billing/cassettes/synthetic-careful.jsonl'), 'utf8')).toBe(
      readFileSync(path.join(REPO_ROOT, 'suites/billing/cassettes/synthetic-careful.jsonl'), 'utf8'),
    );
    const validate = await toolmark(['validate', '--root', target], project);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('domain tickets');
  }, 600_000);
});
