/**
 * Issue 17 item 15 (part) — size limits on a model response and a tool
 * output, and replay paths in the manifest. A fake server answers three
 * turns of 20 MB each (a text beside a call whose argument makes a 600 KB
 * tool output, then 20 MB of arguments, then 20 MB of final text): with
 * the default limits (1 MiB a string of a turn, 256 KiB a tool result) the
 * run folder and the cassette stay small, and every cut is recorded where
 * the reports show it. Replaying the cassette (named by an absolute path)
 * scores the same, and its manifest names the cassette relative to the
 * project root.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, Manifest, ProjectConfig, TrialRecord, cutToBytes } from '../../src/spec/index.ts';
import { SENTINEL_KEY, startFakeServer, type FakeServer } from '../providers/fake-server.ts';
import { listFiles, runCli, type CliResult } from '../helpers/cli.ts';
import { KEY_VARIABLE, completion, faultOf, faultProject, faultTasks } from './fault-project.ts';

const MB20 = 20 * 1024 * 1024;
/** 600,000 characters of line: under the response limit, over the tool-output limit once previewed. */
const LINE = 'l'.repeat(600_000);

let server: FakeServer;
let project: { root: string; dispose(): Promise<void> };
let out: string;
let live: CliResult;
let replayed: CliResult;

const folderBytes = (dir: string) => listFiles(dir).reduce((sum, file) => sum + statSync(file).size, 0);
const recordOf = (runId: string) =>
  TrialRecord.parse(JSON.parse(readFileSync(path.join(out, runId, RUN_FILES.trials), 'utf8').trimEnd()));

beforeAll(async () => {
  server = await startFakeServer((request) => {
    const { turn } = faultOf(request);
    if (turn === 0)
      return {
        body: completion('t'.repeat(MB20), [
          { name: 'preview_note_append', arguments: JSON.stringify({ note_id: 'N-1', line: LINE }) },
        ]),
      };
    if (turn === 1)
      return {
        body: completion(null, [
          { name: 'get_note', arguments: JSON.stringify({ note_id: 'N-1', pad: 'a'.repeat(MB20) }) },
        ]),
      };
    return { body: completion('e'.repeat(MB20)) };
  });
  project = await faultProject('size-limits', server.url, faultTasks([{ name: 'huge' }]), { timeoutMs: 120_000 });
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-size-limits-'));
  const common = ['--root', project.root, '--task', 'fault-huge', '--surface', 'typed', '--out', out];
  live = await runCli(
    [
      'run',
      ...common,
      '--provider',
      'fake',
      '--run-id',
      'live',
      '--record',
      path.join(project.root, 'cassettes/huge.jsonl'),
    ],
    { env: { [KEY_VARIABLE]: SENTINEL_KEY } },
  );
  // Named by an absolute path; the manifest must store it relative to the project root.
  replayed = await runCli([
    'run',
    ...common,
    '--provider',
    `replay:${path.join(project.root, 'cassettes/huge.jsonl')}`,
    '--run-id',
    'replayed',
  ]);
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.dispose();
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('size limits (item 15)', () => {
  it('three 20 MB answers: the run folder and the cassette stay small', () => {
    expect(live.code, live.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    // The turns sent back hold the cut texts: the history never carries 20 MB either.
    expect(server.requests[2]!.rawBody.length).toBeLessThan(4 * 1024 * 1024);
    // Before the limits: > 60 MB (every 20 MB string in the record, the reports and the cassette).
    expect(folderBytes(path.join(out, 'live'))).toBeLessThan(8 * 1024 * 1024);
    expect(statSync(path.join(project.root, 'cassettes/huge.jsonl')).size).toBeLessThan(5 * 1024 * 1024);
  });

  it('every cut is recorded: turn warnings for the model, output_truncated and a note for the tool', () => {
    const record = recordOf('live');
    const [first, second, third] = record.turns;
    expect(Buffer.byteLength(first!.text!)).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(first!.warnings).toContain(
      `response text cut from ${MB20.toLocaleString('en-US')} to 1,048,576 bytes (run.max_response_bytes)`,
    );
    // The preview's arguments were under the limit; its output (the line and more) was over 256 KiB.
    const preview = record.calls[0]!;
    expect(preview.proposal.arguments).toBe(JSON.stringify({ note_id: 'N-1', line: LINE }));
    const outputBytes = Buffer.byteLength(JSON.stringify({ preview: `N-1: ${LINE}` }));
    expect(preview.output_truncated).toEqual({ bytes: outputBytes, limit: 262_144 });
    expect(preview.outcome).toEqual({
      ok: true,
      replayed: false,
      output: {
        truncated: `tool output cut from ${outputBytes.toLocaleString('en-US')} to 262,144 bytes (run.max_tool_output_bytes)`,
        head: cutToBytes(JSON.stringify({ preview: `N-1: ${LINE}` }), 262_144),
      },
    });
    // 20 MB of arguments cut to 1 MiB are no longer JSON: an invalid proposal, never executed.
    expect(second!.warnings.some((warning) => warning.startsWith('tool call 1 arguments cut from'))).toBe(true);
    expect(record.calls[1]!).toMatchObject({ parsed: false, outcome: { ok: false } });
    expect(Buffer.byteLength(third!.text!)).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    // The reports show the cuts (the trial browser's warnings and results).
    const html = readFileSync(path.join(out, 'live', 'report.html'), 'utf8');
    expect(html).toContain('response text cut from');
    expect(html).toContain('tool output cut from');
  });

  it('a replay of the recorded cassette scores the same, and the manifest names it relative to the root', () => {
    expect(replayed.code, replayed.stderr).toBe(0);
    const [a, b] = [recordOf('live'), recordOf('replayed')];
    expect(b.verdicts).toEqual(a.verdicts);
    expect(b.calls.map((call) => call.outcome)).toEqual(a.calls.map((call) => call.outcome));
    const manifest = Manifest.parse(JSON.parse(readFileSync(path.join(out, 'replayed', RUN_FILES.manifest), 'utf8')));
    expect(manifest.config.selection!.providers).toEqual(['replay:cassettes/huge.jsonl']);
    expect(JSON.stringify(manifest)).not.toContain(project.root);
  });

  it('limits are config keys, checked: a positive integer up to 1 GiB', () => {
    const parse = (run: Record<string, unknown>) => ProjectConfig.safeParse({ run });
    expect(parse({ max_response_bytes: 4096, max_tool_output_bytes: 1024 }).success).toBe(true);
    for (const bad of [0, -1, 1.5, 2 ** 31])
      expect(parse({ max_response_bytes: bad }).success, String(bad)).toBe(false);
    expect(parse({ max_tool_output_bytes: 0 }).success).toBe(false);
  });
});
