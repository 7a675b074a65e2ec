import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { RUN_FILES, readTrials } from '../../src/run-folder/index.ts';
import { Manifest, Summary } from '../../src/spec/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';

// The real shipped project (tickets + billing) through the real CLI, with
// the scripted provider (no key) and a handful of tasks to stay quick.
const root = path.resolve(import.meta.dirname, '../..');
let out: string;
let output: string[];

beforeEach(() => {
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-cli-'));
  output = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (output.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (output.push(String(chunk)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(out, { recursive: true, force: true });
});

const base = ['run', '--root', root, '--domain', 'tickets', '--task', 'tickets-s*', '--trials', '2', '--out'];

async function trials(runDir: string): Promise<Record<string, unknown>> {
  const list: [string, unknown][] = [];
  for await (const record of readTrials(runDir)) {
    const { started_at: _started, ...rest } = record as TrialRecord;
    list.push([
      `${record.provider}/${record.model}/${record.surface}/${record.task}/${record.trial}`,
      { ...rest, calls: rest.calls.map((call) => ({ ...call, latency_ms: 0 })) },
    ]);
  }
  return Object.fromEntries(list.sort(([a], [b]) => a.localeCompare(b)));
}

describe('toolmark run (CLI)', () => {
  it('writes manifest, trials, summary and reports, and prints the table', async () => {
    expect(await main([...base, out, '--provider', 'scripted', '--run-id', 'first'])).toBe(0);
    const runDir = path.join(out, 'first');
    expect(readdirSync(runDir).sort()).toEqual(
      expect.arrayContaining(['manifest.json', 'summary.json', 'trials.jsonl']),
    );
    const manifest = Manifest.parse(JSON.parse(readFileSync(path.join(runDir, 'manifest.json'), 'utf8')));
    expect(manifest.finished_at).not.toBeNull();
    expect(manifest.providers).toEqual([{ id: 'scripted', provider: 'scripted', model: 'scripted', synthetic: false }]);
    const lines = readFileSync(path.join(runDir, RUN_FILES.trials), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(manifest.planned);
    expect(manifest.planned).toBe(manifest.tasks.length * manifest.surfaces.length * 2);
    // Every written trial is already scored.
    expect(lines.every((line) => (JSON.parse(line) as TrialRecord).verdicts.length > 0)).toBe(true);
    const summary = Summary.parse(JSON.parse(readFileSync(path.join(runDir, 'summary.json'), 'utf8')));
    expect(summary.run_id).toBe('first');
    expect(output.join('')).toMatch(/surface\s+trials\s+success train\s+success held-out/);
    expect(output.join('').trimEnd().split('\n').at(-1)).toMatch(/^report: .*first\/report\.html$/);
    expect(output.join('')).toContain('run first:');
  });

  it('bad input exits 2 before anything is written', async () => {
    expect(await main([...base, out, '--provider', 'scripted', '--surface', 'typed-v9'])).toBe(2);
    expect(output.join('')).toMatch(/unknown surface "typed-v9"/);
    expect(await main([...base, out, '--provider', 'scripted', '--split', 'test'])).toBe(2);
    expect(await main([...base, out, '--provider', 'replay:nowhere/*.jsonl'])).toBe(2);
    expect(await main([...base, out, '--provider', 'opneai:gpt-4.1'])).toBe(2);
    expect(output.join('')).toContain('did you mean openai?');
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(await main([...base, out, '--provider', 'openai:gpt-4.1-mini'])).toBe(2);
      expect(output.join('')).toContain('OPENAI_API_KEY');
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
    expect(readdirSync(out)).toEqual([]);
  });

  it('--resume after a crash (torn line, lost lines) ends with the trials of an uninterrupted run', async () => {
    expect(await main([...base, out, '--provider', 'scripted', '--run-id', 'whole'])).toBe(0);
    const whole = await trials(path.join(out, 'whole'));
    expect(await main([...base, out, '--provider', 'scripted', '--run-id', 'crashed'])).toBe(0);
    const file = path.join(out, 'crashed', RUN_FILES.trials);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    writeFileSync(file, `${lines.slice(0, 5).join('\n')}\n${lines[5]!.slice(0, 40)}`);
    output = [];
    expect(await main(['run', '--root', root, '--out', out, '--resume', 'crashed'])).toBe(0);
    expect(output.join('')).toMatch(
      /run crashed: \d+ trials run, 5 already done, 0 errored, dropped a torn last line \(40 bytes\)/,
    );
    expect(await trials(path.join(out, 'crashed'))).toEqual(whole);
  });

  it('--record then replay gives the same trials; shards merge into the whole run', async () => {
    const cassette = path.join(out, 'cassette.jsonl');
    expect(await main([...base, out, '--provider', 'scripted', '--run-id', 'recorded', '--record', cassette])).toBe(0);
    expect(await main([...base, out, '--provider', `replay:${cassette}`, '--run-id', 'replayed'])).toBe(0);
    const recorded = Object.values(await trials(path.join(out, 'recorded'))).map((record) => ({
      ...(record as object),
      provider: 'x',
    }));
    const replayed = Object.values(await trials(path.join(out, 'replayed'))).map((record) => ({
      ...(record as object),
      provider: 'x',
    }));
    expect(replayed).toEqual(recorded);

    expect(await main([...base, out, '--provider', 'scripted', '--run-id', 'shard-1', '--shard', '1/2'])).toBe(0);
    expect(await main([...base, out, '--provider', 'scripted', '--run-id', 'shard-2', '--shard', '2/2'])).toBe(0);
    expect(
      await main([
        'merge',
        path.join(out, 'shard-1'),
        path.join(out, 'shard-2'),
        path.join(out, 'shard-1'),
        '--out',
        out,
        '--run-id',
        'merged',
      ]),
    ).toBe(0);
    const merged = await trials(path.join(out, 'merged'));
    expect(merged).toEqual(await trials(path.join(out, 'recorded')));
    const manifest = Manifest.parse(JSON.parse(readFileSync(path.join(out, 'merged', 'manifest.json'), 'utf8')));
    expect(manifest.planned).toBe(Object.keys(merged).length);
    expect(existsSync(path.join(out, 'merged', 'summary.json'))).toBe(true);
  });
});
