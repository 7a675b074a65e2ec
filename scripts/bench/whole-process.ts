import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A whole `node bin/toolmark.js …` process, the way a user meets it: wall
 * time measured here, CPU time (user + system, all threads) and peak RSS
 * from the kernel's accounting of the child (`/usr/bin/time -v`, GNU time),
 * so node's own start-up and exit are inside the figures.
 */

const BIN = fileURLToPath(new URL('../../bin/toolmark.js', import.meta.url));
const TIME = '/usr/bin/time';

export interface ProcessFigures {
  command: string;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function field(report: string, name: string): number {
  const match = new RegExp(`${name}: ([0-9.]+)`).exec(report);
  return match ? Number(match[1]) : Number.NaN;
}

/** Run `toolmark <args>` in `cwd` once. */
export function timeToolmark(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProcessFigures> {
  const report = path.join(os.tmpdir(), `toolmark-time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ['-v', '-o', report, process.execPath, BIN, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const text = readFileSync(report, 'utf8');
      rmSync(report, { force: true });
      const cpuMs = (field(text, 'User time \\(seconds\\)') + field(text, 'System time \\(seconds\\)')) * 1000;
      // GNU time reports kilobytes (KiB).
      const peakRssMb = field(text, 'Maximum resident set size \\(kbytes\\)') / 1024;
      resolve({ command: `toolmark ${args.join(' ')}`, wallMs, cpuMs, peakRssMb, code, stdout, stderr });
    });
  });
}

/** The phases `toolmark run --timings` printed (src/cli/phase-timings.ts). */
export function phasesOf(
  stderr: string,
): { phases: { phase: string; wall_ms: number; cpu_ms: number }[]; wall_ms: number; cpu_ms: number } | null {
  const line = stderr.split('\n').find((text) => text.startsWith('timings: '));
  return line ? JSON.parse(line.slice('timings: '.length)) : null;
}

/** Median by wall time of `runs` runs after one warm-up. */
export async function medianRun(
  args: string[],
  cwd: string,
  runs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProcessFigures> {
  await timeToolmark(args, cwd, env);
  const all: ProcessFigures[] = [];
  for (let run = 0; run < runs; run += 1) all.push(await timeToolmark(args, cwd, env));
  return all.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs / 2)]!;
}
