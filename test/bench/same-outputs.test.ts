import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// scripts/perf/same-outputs.mjs: the check every speed change of issue 20 is
// held to (outputs identical apart from times). It must say "same" only
// when they are, and name what differs otherwise.
const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/perf/same-outputs.mjs');
const folders: string[] = [];

interface RunFiles {
  summary?: string;
  page?: string;
  trials?: object[];
}

function runFolder(files: RunFiles = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'same-outputs-'));
  folders.push(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'summary.json'), files.summary ?? '{"v":1,"groups":[]}\n');
  writeFileSync(path.join(dir, 'report.md'), '# Run\n');
  writeFileSync(path.join(dir, 'junit.xml'), '<testsuites/>\n');
  writeFileSync(
    path.join(dir, 'report.html'),
    files.page ??
      '<span>started 2026-12-02T17:01:27.673Z · finished 2026-12-02T17:01:29.024Z</span><span>toolmark 0.1.0 · commit 517fbc477a</span>',
  );
  const trials = files.trials ?? [
    { task: 'a', started_at: '2026-12-02T17:01:27.673Z', requests: [{ latency_ms: 3 }], success: true },
    { task: 'b', started_at: '2026-12-02T17:01:27.700Z', requests: [{ latency_ms: 4 }], success: false },
  ];
  writeFileSync(path.join(dir, 'trials.jsonl'), trials.map((trial) => `${JSON.stringify(trial)}\n`).join(''));
  return dir;
}

function compare(base: string, next: string): { status: number; output: string } {
  try {
    return { status: 0, output: execFileSync(process.execPath, [SCRIPT, base, next], { encoding: 'utf8' }) };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { status: failed.status, output: failed.stdout };
  }
}

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('scripts/perf/same-outputs.mjs', () => {
  it('says "same" when only times, latencies and the commit differ', () => {
    const later = runFolder({
      page: '<span>started 2026-12-03T08:00:00.000Z · finished 2026-12-03T08:00:02.500Z</span><span>toolmark 0.1.0 · commit 0123456789 dirty</span>',
      trials: [
        { task: 'a', started_at: '2026-12-03T08:00:00.100Z', requests: [{ latency_ms: 9 }], success: true },
        { task: 'b', started_at: '2026-12-03T08:00:00.200Z', requests: [{ latency_ms: 1 }], success: false },
      ],
    });
    expect(compare(runFolder(), later)).toEqual({ status: 0, output: 'same outputs (2 records)\n' });
  });

  it('says "different" for a changed byte in summary.json, the page or a trial record', () => {
    const base = runFolder();
    const summary = compare(base, runFolder({ summary: '{"v":1,"groups":[ ]}\n' }));
    expect(summary.status).toBe(1);
    expect(summary.output).toContain('summary.json: differs');

    const page = compare(base, runFolder({ page: '<span>started 2026-12-02T17:01:27.673Z</span>' }));
    expect(page.status).toBe(1);
    expect(page.output).toContain('report.html: differs at char');

    const verdict = compare(
      base,
      runFolder({
        trials: [
          { task: 'a', started_at: 'x', requests: [{ latency_ms: 3 }], success: true },
          { task: 'b', started_at: 'x', requests: [{ latency_ms: 4 }], success: true },
        ],
      }),
    );
    expect(verdict.status).toBe(1);
    expect(verdict.output).toContain('trials.jsonl: record differs');
  });

  it('tells records in another order from different records, and counts them', () => {
    const reordered = runFolder({
      trials: [
        { task: 'b', started_at: 'x', requests: [{ latency_ms: 4 }], success: false },
        { task: 'a', started_at: 'y', requests: [{ latency_ms: 3 }], success: true },
      ],
    });
    expect(compare(runFolder(), reordered).output).toBe(
      'trials.jsonl: same records, different order\nsame outputs (2 records)\n',
    );
    const fewer = compare(runFolder(), runFolder({ trials: [{ task: 'a', success: true }] }));
    expect(fewer.status).toBe(1);
    expect(fewer.output).toContain('trials.jsonl: 2 vs 1 records');
  });

  it('refuses a folder that is not a finished run (exit 2), rather than comparing what is there', () => {
    const unfinished = runFolder();
    rmSync(path.join(unfinished, 'report.html'));
    expect(compare(runFolder(), unfinished)).toEqual({ status: 2, output: '' });
  });
});
