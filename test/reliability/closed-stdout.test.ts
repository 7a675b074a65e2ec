import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cleanEnv } from '../helpers/cli.ts';

// `toolmark … | head`: the reader closes the pipe before the command has
// written everything. That must not turn into a crash with a stack trace.

describe('a closed stdout', () => {
  it('is not an error: the command finishes with its own exit code and nothing on stderr', async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/toolmark.js'), 'tokens'], {
      cwd: REPO_ROOT,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy(); // closed before the first line is written: every write gets EPIPE
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 300_000);
});
