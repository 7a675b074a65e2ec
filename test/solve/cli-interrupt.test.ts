import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { slowRunPerTest } from '../helpers/slow-chat-server.ts';

// SIGINT on a real process: a slow local OpenAI-compatible server keeps
// trials in flight long enough to interrupt the run between them.
const root = path.resolve(import.meta.dirname, '../..');
const fixture = slowRunPerTest(150, 'I cannot help with that.', 'toolmark-sigint-');

function run(
  args: string[],
  onStdout?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/toolmark.js'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OPENAI_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    onStdout?.(child);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function lineCount(file: string): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('toolmark run: SIGINT', () => {
  it('finishes in-flight trials, writes the summary of what finished, says how to resume; --resume completes it', async () => {
    const args = [
      'run',
      '--domain',
      'tickets',
      '--task',
      'tickets-abstain-*',
      '--surface',
      'typed-v2',
      '--trials',
      '1',
      '--concurrency',
      '2',
      '--out',
      fixture.out,
      '--provider',
      `openai-compatible:slow@${fixture.url}`,
    ];
    const trials = path.join(fixture.out, 'interrupted', 'trials.jsonl');
    const first = await run([...args, '--run-id', 'interrupted'], (child) => {
      const poll = setInterval(() => {
        if (lineCount(trials) >= 2) {
          clearInterval(poll);
          child.kill('SIGINT');
        }
      }, 20);
      child.on('close', () => clearInterval(poll));
    });
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('interrupted: finishing the trials in flight');
    expect(first.stdout).toContain('toolmark run --resume');
    const manifest = JSON.parse(readFileSync(path.join(fixture.out, 'interrupted', 'manifest.json'), 'utf8'));
    const done = lineCount(trials);
    expect(done).toBeGreaterThanOrEqual(2);
    expect(done).toBeLessThan(manifest.planned);
    expect(manifest.finished_at).toBeNull();
    const summary = JSON.parse(readFileSync(path.join(fixture.out, 'interrupted', 'summary.json'), 'utf8'));
    const all = summary.groups.find(
      (group: { kind: string; split: string }) => group.kind === 'all' && group.split === 'all',
    );
    expect(all.trials).toBe(done);

    const second = await run(['run', '--out', fixture.out, '--resume', 'interrupted']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`${done} already done`);
    expect(lineCount(trials)).toBe(manifest.planned);
    expect(
      JSON.parse(readFileSync(path.join(fixture.out, 'interrupted', 'manifest.json'), 'utf8')).finished_at,
    ).not.toBeNull();
  });
});
