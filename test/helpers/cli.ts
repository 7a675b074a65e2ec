/**
 * Helpers for the reliability tests: run the real CLI as a child process
 * (so SIGKILL, SIGINT, exit codes and stderr are the user's), and list every
 * file a run wrote.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(REPO_ROOT, 'bin/toolmark.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Added to a clean copy of process.env with every provider key removed. */
  env?: Record<string, string | undefined>;
  /** Called once the child is running (kill it, watch files, …). */
  onSpawn?: (child: ChildProcess) => void;
  /** Hard stop, so a hung child fails the test instead of hanging it. */
  timeoutMs?: number;
}

/** Environment without any real provider key, so a test can never reach a real API by accident. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/API_KEY|_TOKEN|OPENAI|ANTHROPIC/i.test(name)) delete env[name];
  // No colours or TTY progress bars in captured output.
  env.NO_COLOR = '1';
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** `node bin/toolmark.js ...args`, capturing stdout and stderr. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: cleanEnv(options.env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const guard = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 240_000);
    options.onSpawn?.(child);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Every regular file under `dir` (recursively), absolute paths; [] when it does not exist. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...listFiles(full));
    else files.push(full);
  }
  return files.sort();
}

/** Number of complete (newline-terminated) lines in a file; 0 when absent. */
export function completeLines(file: string): number {
  if (!existsSync(file)) return 0;
  const text = readFileSync(file, 'utf8');
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

/** Wait for a condition of a child process (its output, its files): checked every 50 ms, no fixed sleep. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The trial records of a run folder's `trials.jsonl`, parsed as JSON (not checked against the schema). */
export function trialLines<T = Record<string, unknown>>(runDir: string): T[] {
  return readFileSync(path.join(runDir, 'trials.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}
