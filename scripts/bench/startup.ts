import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Figure 3: wall time of whole CLI processes (`node bin/toolmark.js …`),
 * node start-up and tsx registration included, the way a user meets them.
 */

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/toolmark.js', import.meta.url));

export interface StartupResult {
  command: string;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  exitCode: number | null;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Run `toolmark <args>` `runs` times (after one unmeasured warm-up that fills tsx's transform cache). */
export function timeCommand(args: string[], runs: number, cwd = REPOSITORY): StartupResult {
  const once = () => {
    const started = performance.now();
    const result = spawnSync(process.execPath, [BIN, ...args], {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    return { ms: performance.now() - started, status: result.status };
  };
  once();
  const times: number[] = [];
  let exitCode: number | null = 0;
  for (let run = 0; run < runs; run += 1) {
    const { ms, status } = once();
    times.push(ms);
    exitCode = status;
  }
  return {
    command: `toolmark ${args.join(' ')}`,
    runs,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    exitCode,
  };
}
