import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFixtureRun } from './fixture-run.ts';
import { parseXml } from './xml-reader.ts';

const BIN = resolve('bin/toolmark.js');
let workDir: string;

async function toolmark(args: string[], cwd = workDir): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)('node', [BIN, ...args], { cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-report-cli-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('toolmark report', () => {
  it('re-renders all three reports from a run folder', async () => {
    const runDir = join(workDir, 'results', 'run-a');
    await writeFixtureRun(runDir, { runId: 'run-a' });
    const result = await toolmark(['report', runDir, '--root', workDir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const name of ['report.md', 'report.html', 'junit.xml']) {
      expect((await stat(join(runDir, name))).size).toBeGreaterThan(0);
      expect(result.stdout).toContain(name);
    }
  });

  it('finds a run by id under the results folder and takes the JUnit threshold from toolmark.config.yaml', async () => {
    const root = join(workDir, 'project');
    const runDir = join(root, 'out', 'run-b');
    await writeFixtureRun(runDir, { runId: 'run-b' });
    await writeFile(join(root, 'toolmark.config.yaml'), 'v: 1\nrun:\n  out: out\ngate:\n  junit_min_success: 1\n');
    expect((await toolmark(['report', 'run-b', '--root', root])).code).toBe(0);
    const strict = Number(parseXml(await readFile(join(runDir, 'junit.xml'), 'utf8')).attributes.failures);
    await writeFile(join(root, 'toolmark.config.yaml'), 'v: 1\nrun:\n  out: out\n');
    expect((await toolmark(['report', 'run-b', '--root', root])).code).toBe(0);
    const lenient = Number(parseXml(await readFile(join(runDir, 'junit.xml'), 'utf8')).attributes.failures);
    expect(strict).toBeGreaterThan(lenient);
  });

  it('exits 2 with a one-line error, no stack trace, for a bad folder', async () => {
    await mkdir(join(workDir, 'results', 'run-c'), { recursive: true });
    const missing = await toolmark(['report', 'run-x', '--root', workDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: .*no run folder "run-x"/);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const empty = await toolmark(['report', join(workDir, 'results', 'run-c'), '--root', workDir]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/missing manifest\.json, trials\.jsonl, summary\.json/);
  });
});
