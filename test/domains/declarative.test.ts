import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedProvider, callTurn, textTurn } from '../../providers/scripted.ts';
import { providerToolsPayload } from '../../providers/tool-payload.ts';
import { main } from '../../src/cli/main.ts';
import { loadProject } from '../../src/load/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import { ConfigError, formatConfigIssue } from '../../src/spec/index.ts';
import { FIXTURES, REPO_ROOT } from '../load/materialize.ts';
import { runCli } from '../helpers/cli.ts';

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A copy of the YAML project with an overlay laid over it. */
async function project(overlay: string | null): Promise<string> {
  await mkdir(join(REPO_ROOT, 'node_modules/.cache'), { recursive: true });
  const root = await mkdtemp(join(REPO_ROOT, 'node_modules/.cache/toolmark-yaml-'));
  scratch.push(root);
  await cp(join(FIXTURES, 'yaml-project'), root, { recursive: true });
  if (overlay) await cp(overlay, root, { recursive: true });
  return root;
}

async function desk() {
  const loaded = await loadProject(await project(null));
  const domain = loaded.domains[0]!;
  return { domain, surface: domain.surfaces[0]!, task: (id: string) => domain.tasks.find((task) => task.id === id)! };
}

describe('declarative domain.yaml', () => {
  it('answers from fixtures matched by constraints: an output, or a declared structured error', async () => {
    const { domain, surface, task } = await desk();
    const provider = new ScriptedProvider([
      callTurn('get_weather', { city: 'Atlantis' }),
      callTurn('get_weather', { city: 'Paris' }, 'c2'),
      textTurn('7 degrees'),
    ]);
    const record = await runTrial({
      provider,
      domain: domain.domain,
      surface,
      task: task('desk-weather-paris'),
      trial: 0,
    });
    expect(record.calls.map((call) => call.outcome)).toEqual([
      {
        ok: false,
        error: {
          code: 'city_unknown',
          category: 'not_found',
          message: 'No weather for Atlantis.',
          retryable: false,
          details: {},
        },
      },
      { ok: true, output: { temperature_c: 7, sky: cloudy() }, replayed: false },
    ]);
  });

  it('reports invalid arguments with JSON pointers and expected values the model can act on', async () => {
    const { domain, surface, task } = await desk();
    const provider = new ScriptedProvider([
      callTurn('book_table', { restaurant: 'Chez Anna', date: 'tomorrow', people: 40 }),
      textTurn('sorry'),
    ]);
    const record = await runTrial({ provider, domain: domain.domain, surface, task: task('desk-book'), trial: 0 });
    const error = record.calls[0]!.outcome.ok ? null : record.calls[0]!.outcome.error;
    expect(error?.code).toBe('invalid_arguments');
    expect(error?.details.violations).toEqual(
      expect.arrayContaining([
        { path: '/request_id', message: 'required property "request_id" is missing', expected: 'string' },
        expect.objectContaining({ path: '/people', message: 'must be <= 12' }),
        expect.objectContaining({ path: '/date', message: 'must match format "date"' }),
      ]),
    );
    // The model reads the same error in its next request.
    const toolMessage = provider.requests[1]!.request.messages.find((message) => message.role === 'tool');
    expect(toolMessage).toMatchObject({ is_error: true });
  });

  it('keeps a record store per trial: a write creates a record, final_state sees it, the next trial starts fresh', async () => {
    const { domain, surface, task } = await desk();
    const booking = { restaurant: 'Chez Anna', date: '2026-12-31', people: 4, request_id: 'r-7' };
    const first = await runTrial({
      provider: new ScriptedProvider([
        callTurn('book_table', booking),
        callTurn('list_bookings', { date: '2026-12-31' }, 'c2'),
        textTurn('booked'),
      ]),
      domain: domain.domain,
      surface,
      task: task('desk-book'),
      trial: 0,
    });
    expect(first.effects).toEqual([
      expect.objectContaining({
        action: 'desk.book_table',
        effect: 'write',
        target: 'bookings/r-7',
        change_id: 'r-7',
        authorized: true,
      }),
    ]);
    expect(first.calls[1]!.outcome).toMatchObject({
      ok: true,
      output: { count: 1, items: [{ id: 'r-7', ...booking }] },
    });
    expect(first.final_state.bookings).toHaveLength(2);
    const second = await runTrial({
      provider: new ScriptedProvider([textTurn('nothing')]),
      domain: domain.domain,
      surface,
      task: task('desk-book'),
      trial: 1,
    });
    expect(second.final_state.bookings).toHaveLength(1);
  });
});

function cloudy(): string {
  return 'cloudy';
}

const NEGATIVE: { name: string; at: string; message: string }[] = [
  {
    name: 'unknown-from',
    at: 'suites/desk/domain.yaml:12:11',
    message:
      'actions[0].from: no tool "get_wether" in tools_file (expected one of get_weather, book_table); did you mean get_weather?',
  },
  {
    name: 'bad-json-schema',
    at: 'suites/desk/domain.yaml:28:7',
    message: 'actions[2].input: invalid JSON Schema (2020-12)',
  },
  { name: 'unknown-error-code', at: 'suites/desk/domain.yaml:15:24', message: 'unknown error code "city_unknwn"' },
  {
    name: 'both-domain-files',
    at: 'suites/desk/domain.yaml',
    message: 'suites/desk has both domain.ts and domain.yaml',
  },
  {
    name: 'literal-header',
    at: 'suites/desk/domain.yaml:7:20',
    message: 'server.headers.Authorization: header Authorization has a literal value',
  },
  {
    name: 'mixed-tools-file',
    at: 'suites/desk/tools.json:3:3',
    message: 'this tool is in the anthropic format, but the file is openai',
  },
];

describe('declarative domain.yaml: negative fixtures (test/fixtures/yaml-negative/)', () => {
  it('has a row for every fixture folder', () => {
    expect(NEGATIVE.map((row) => row.name).sort()).toEqual(readdirSync(join(FIXTURES, 'yaml-negative')).sort());
  });

  it.each(NEGATIVE)('$name is rejected at $at', async ({ name, at, message }) => {
    const root = await project(join(FIXTURES, 'yaml-negative', name));
    const error = await loadProject(root).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).issues.map(formatConfigIssue);
    expect(
      lines.find((line) => line.startsWith(`${at}:`) && line.includes(message)),
      `issues were:\n${lines.join('\n')}`,
    ).toBeDefined();
  });
});

describe('tools files in both directions', () => {
  it('an OpenAI tools file imports and exports back to the same JSON', async () => {
    const root = await project(null);
    await rm(join(root, 'suites/desk'), { recursive: true });
    const file = join(FIXTURES, 'tool-files/openai-tools.json');
    expect(await main(['import', 'tools', file, '--name', 'weather', '--root', root])).toBe(0);
    const loaded = await loadProject(root);
    const surface = loaded.domains[0]!.surfaces.find((candidate) => candidate.id === 'imported')!;
    expect(providerToolsPayload('openai', surface.payload)).toEqual(JSON.parse(await readFile(file, 'utf8')));
    // Key order too: the export is the same text once both are printed alike.
    expect(JSON.stringify(providerToolsPayload('openai', surface.payload))).toBe(
      JSON.stringify(JSON.parse(await readFile(file, 'utf8'))),
    );
    // `toolmark tokens --payload` prints the same export.
    const printed = await runCli(['tokens', '--root', root, '--surface', 'imported', '--payload', 'openai'], {
      timeoutMs: 180_000,
    });
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(await readFile(file, 'utf8')));
  });

  it('an Anthropic tools file round-trips through the Anthropic payload', async () => {
    const root = await project(null);
    await rm(join(root, 'suites/desk'), { recursive: true });
    const file = join(FIXTURES, 'tool-files/anthropic-tools.json');
    expect(await main(['import', 'tools', file, '--name', 'weather', '--root', root])).toBe(0);
    const surface = (await loadProject(root)).domains[0]!.surfaces[0]!;
    expect(JSON.stringify(providerToolsPayload('anthropic', surface.payload))).toBe(
      JSON.stringify(JSON.parse(await readFile(file, 'utf8'))),
    );
  });
});
