import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, slowRunPerTest } from '../helpers/slow-chat-server.ts';

// Ctrl-C on a real `toolmark run` over the MCP example: a slow local
// OpenAI-compatible server keeps trials (and their MCP servers) in flight.
// Linux /proc tells which processes the run started.
const root = path.resolve(import.meta.dirname, '../..');
const fixture = slowRunPerTest(1_500, 'Nothing to do.', 'toolmark-mcp-sigint-');

/** Processes whose parent is `parent` and whose command line mentions `marker`. */
function childrenOf(parent: number, marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Start a run, wait until it has MCP servers up, interrupt it `presses` times; the servers it had. */
async function interruptedRun(presses: 1 | 2): Promise<{ code: number | null; servers: number[]; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'bin/toolmark.js'),
      'run',
      '--root',
      'examples/mcp',
      '--domain',
      'memory',
      '--trials',
      '1',
      '--concurrency',
      '3',
      '--out',
      fixture.out,
      '--run-id',
      'interrupted',
      '--provider',
      `openai-compatible:slow@${fixture.url}`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENAI_API_KEY: '' } },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  child.stdout!.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const servers = new Set<number>();
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      for (const pid of childrenOf(child.pid!, 'server-memory')) servers.add(pid);
      if (servers.size >= 2) {
        clearInterval(poll);
        child.kill('SIGINT');
        if (presses === 2) setTimeout(() => child.kill('SIGINT'), 100);
        resolve();
      }
    }, 50);
    closed.then(() => {
      clearInterval(poll);
      reject(new Error(`the run ended before two servers were up: ${stderr}`));
    });
  });
  return { code: await closed, servers: [...servers], stderr };
}

describe('toolmark run on an MCP domain: Ctrl-C', () => {
  it('one Ctrl-C: the trials in flight finish and every server they started is closed', async () => {
    const { code, servers, stderr } = await interruptedRun(1);
    expect(code, stderr).toBe(130);
    expect(servers.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => servers.filter(alive), { timeout: 30_000 }).toEqual([]);
  }, 300_000);

  it('a second Ctrl-C exits at once, and still leaves no server behind', async () => {
    const { code, servers, stderr } = await interruptedRun(2);
    expect(code, stderr).toBe(130);
    await expect.poll(() => servers.filter(alive), { timeout: 30_000 }).toEqual([]);
  }, 300_000);
});
