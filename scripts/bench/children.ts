import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RescoreTimings, ReplayTimings } from './replay-run.ts';

/** Child processes of the bench: each measurement gets a fresh heap and its own peak RSS. */

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/toolmark.js', import.meta.url));

export type WithRss<T> = T & { max_rss_mb: number };

function run(
  args: string[],
  cwd = REPOSITORY,
): Promise<{ stdout: string; stderr: string; code: number | null; wallMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code, wallMs: performance.now() - started }));
  });
}

async function childJson<T>(args: string[]): Promise<WithRss<T>> {
  const result = await run([CHILD, ...args]);
  if (result.code !== 0) throw new Error(`bench child ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as WithRss<T>;
}

/** Replay the project at `root` in a child process through the run path. */
export function replayInChild(root: string, runId: string): Promise<WithRss<ReplayTimings>> {
  return childJson<ReplayTimings>(['replay', root, runId]);
}

/** Re-score an existing run folder in a child process. */
export function rescoreInChild(root: string, runDir: string): Promise<WithRss<RescoreTimings>> {
  return childJson<RescoreTimings>(['rescore', root, runDir]);
}

/** Run the real CLI (`node bin/toolmark.js …`) and time the whole process. */
export async function cli(args: string[], cwd: string): Promise<{ wallMs: number; stdout: string }> {
  const result = await run([BIN, ...args], cwd);
  if (result.code !== 0) throw new Error(`toolmark ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return { wallMs: result.wallMs, stdout: result.stdout };
}
