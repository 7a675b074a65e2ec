/**
 * `npm run bench`: the performance figures of issue 8, one line each, and
 * `results/bench.json` with every number and the machine they came from.
 * See docs/performance.md for what each figure means.
 *
 *   npm run bench            all figures (under a minute)
 *   npm run bench -- --keep  keep the generated suites and runs (temp folder)
 *   npm run bench -- --distinct  only figure 5 (issue 20: distinct tasks, whole processes)
 *   npm run bench -- --live  only figures 2 and 2b (live efficiency, 429 retries)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordBenchCassette } from './bench/cassette.ts';
import { cli, replayInChild, rescoreInChild } from './bench/children.ts';
import { measureLive, startFakeServer, type LiveResult } from './bench/live.ts';
import { timeCommand } from './bench/startup.ts';
import { distinctFigures } from './bench/distinct-figures.ts';
import { BENCH_SURFACES, writeBenchProject, writeTasksWithOneEdited } from './bench/suite.ts';
import { benchTasks } from './bench/tasks.ts';

const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const TARGETS = { replayPerSecond: 5_000, peakRssMb: 300, efficiency: 0.9, startupMs: 500, rescoreRatio: 10 };

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

function shell(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).trim();
  } catch {
    return '(unavailable)';
  }
}

/** Generate a bench project with `trials` trials per task × surface; returns its root. */
async function generate(
  work: string,
  name: string,
  trials: number,
): Promise<{ root: string; trials: number; cassetteLines: number }> {
  const root = path.join(work, name);
  writeBenchProject(root, { trials });
  const { lines } = await recordBenchCassette(root, trials);
  return { root, trials: trials * benchTasks().length * BENCH_SURFACES.length, cassetteLines: lines };
}

async function liveFigures(): Promise<{ plain: LiveResult; throttled: LiveResult }> {
  const server = await startFakeServer(50);
  try {
    const plain = await measureLive({ url: server.url, count: 2_000, concurrency: 32, delayMs: 50, prefix: 'plain' });
    const throttled = await measureLive({
      url: server.url,
      count: 2_000,
      concurrency: 32,
      delayMs: 50,
      prefix: 'throttled',
      refuseEvery: 10,
    });
    return { plain, throttled };
  } finally {
    server.stop();
  }
}

/** Every request answered exactly once: none failed, lost, duplicated or mixed up. */
function intact(result: LiveResult): boolean {
  return (
    result.failed === 0 &&
    result.mismatched === 0 &&
    result.server.missing === 0 &&
    result.server.duplicates === 0 &&
    result.server.ids === result.requests
  );
}

/** Figures 2 and 2b: live efficiency and retries through the openai adapter against a local fake server. */
async function liveLines(): Promise<{ plain: LiveResult; throttled: LiveResult }> {
  const live = await liveFigures();
  line(
    `2. live: 2,000 requests × 50 ms at concurrency 32 in ${seconds(live.plain.wallMs)} (ideal ${seconds(live.plain.idealMs)}): efficiency ${live.plain.efficiency.toFixed(3)} — target ≥ ${TARGETS.efficiency}: ${verdict(live.plain.efficiency >= TARGETS.efficiency)} ` +
      `(client CPU ${seconds(live.plain.clientCpuMs)}; ${live.plain.server.connections} TCP connections opened during the measurement, the rest reused from the warm-up by keep-alive)`,
  );
  line(
    `2b. live with 10% answered 429 + retry-after 0.2: ${live.throttled.server.refused} refused, ${live.throttled.server.attempts} attempts, ${live.throttled.requests - live.throttled.failed} of ${live.throttled.requests} completed, ` +
      `${live.throttled.server.missing} lost, ${live.throttled.server.duplicates} duplicated (efficiency ${live.throttled.efficiency.toFixed(3)}) — ${intact(live.throttled) ? 'every request exactly once' : 'MISSED'}`,
  );
  return live;
}

async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const benchStarted = performance.now();
  const machine = {
    nproc: Number(shell('nproc', [])),
    free_g: shell('free', ['-g']),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadavg_at_start: os.loadavg(),
  };
  line(
    `machine: ${machine.nproc} CPUs (${machine.cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GB, node ${machine.node}, load average ${machine.loadavg_at_start.map((value) => value.toFixed(2)).join(' ')}`,
  );
  const work = mkdtempSync(path.join(os.tmpdir(), 'toolmark-bench-'));

  if (process.argv.includes('--live')) {
    await liveLines();
    return;
  }

  if (process.argv.includes('--distinct')) {
    try {
      const distinct = await distinctFigures(work, line);
      mkdirSync(path.join(REPOSITORY, 'results'), { recursive: true });
      const json = {
        v: 1,
        date: new Date().toISOString(),
        machine: { ...machine, loadavg_at_end: os.loadavg() },
        distinct,
      };
      writeFileSync(path.join(REPOSITORY, 'results', 'bench-distinct.json'), `${JSON.stringify(json, null, 2)}\n`);
      line(`bench finished in ${seconds(performance.now() - benchStarted)}; wrote results/bench-distinct.json`);
    } finally {
      if (!keep) rmSync(work, { recursive: true, force: true });
    }
    return;
  }

  try {
    // 1. Replay throughput (10k) and memory (100k), through the run path in child processes.
    const small = await generate(work, 'suite-10k', 50);
    const replay10k = await replayInChild(small.root, 'replay-10k');
    if (replay10k.errored > 0 || replay10k.trials !== small.trials)
      throw new Error(
        `bench: replay of ${small.trials} trials ran ${replay10k.trials} with ${replay10k.errored} errored`,
      );
    line(
      `1. replay ${count(replay10k.trials)} trials: ${count(replay10k.throughput)} trials/s after start-up to summary.json ` +
        `(trials ${seconds(replay10k.trialsMs)} + summary ${seconds(replay10k.summaryMs)}; start-up ${seconds(replay10k.startupMs)}; ` +
        `reports +${seconds(replay10k.reportMs)} → ${count(replay10k.throughputWithReports)}/s with reports) — target ≥ ${count(TARGETS.replayPerSecond)}/s: ${verdict(replay10k.throughput >= TARGETS.replayPerSecond)}`,
    );
    const cliRun = await cli(['run', '--root', small.root, '--run-id', 'cli-10k'], small.root);
    line(
      `1b. \`toolmark run\` on the same suite (whole CLI process: start-up, trials, summary, reports, table): ${seconds(cliRun.wallMs)} → ${count(small.trials / (cliRun.wallMs / 1000))} trials/s overall`,
    );

    const large = await generate(work, 'suite-100k', 500);
    const replay100k = await replayInChild(large.root, 'replay-100k');
    if (replay100k.errored > 0 || replay100k.trials !== large.trials)
      throw new Error(
        `bench: replay of ${large.trials} trials ran ${replay100k.trials} with ${replay100k.errored} errored`,
      );
    line(
      `1c. replay ${count(replay100k.trials)} trials: peak RSS ${count(replay100k.max_rss_mb)} MB — target ≤ ${TARGETS.peakRssMb} MB: ${verdict(replay100k.max_rss_mb <= TARGETS.peakRssMb)} ` +
        `(${count(replay100k.throughput)} trials/s to summary.json; trials.jsonl ${count(replay100k.trialsBytes / 2 ** 20)} MB)`,
    );

    // 2. Live efficiency through the openai adapter against a local fake server.
    const live = await liveLines();

    // 3. Start-up of whole CLI processes on the shipped example.
    const help = timeCommand(['--help'], 7);
    const validate = timeCommand(['validate'], 7);
    line(
      `3. start-up (median of 7): toolmark --help ${count(help.medianMs)} ms, toolmark validate ${count(validate.medianMs)} ms — target < ${TARGETS.startupMs} ms: ${verdict(help.medianMs < TARGETS.startupMs && validate.medianMs < TARGETS.startupMs && help.exitCode === 0 && validate.exitCode === 0)}`,
    );

    // 4. Re-scoring the 100k run versus replaying it (`toolmark report --rescore`'s function, in a child).
    const rescore = await rescoreInChild(large.root, replay100k.runDir);
    if (rescore.trials !== large.trials)
      throw new Error(`bench: re-score saw ${rescore.trials} of ${large.trials} trials`);
    const replayTotal = replay100k.startupMs + replay100k.trialsMs + replay100k.summaryMs + replay100k.reportMs;
    const rescoreTotal = rescore.loadMs + rescore.rescoreMs;
    const ratio = replayTotal / rescoreTotal;
    const rescoreCli = await cli(['report', replay100k.runDir, '--root', large.root, '--rescore'], large.root);
    const reportCli = await cli(['report', replay100k.runDir, '--root', large.root], large.root);
    line(
      `4. re-score ${count(rescore.trials)} trials (grade + aggregate + summary + reports) in ${seconds(rescoreTotal)} (CPU ${seconds(rescore.cpuMs)}) vs replay ${seconds(replayTotal)}: ${ratio.toFixed(1)}× faster — target ≥ ${TARGETS.rescoreRatio}×: ${verdict(ratio >= TARGETS.rescoreRatio)}` +
        (rescore.changed > 0 ? ` (WARNING: ${rescore.changed} trials graded differently)` : '') +
        `; whole CLI processes: \`toolmark report --rescore\` ${seconds(rescoreCli.wallMs)}, \`toolmark report\` (re-render only) ${seconds(reportCli.wallMs)}`,
    );
    // 4b. The same after editing one task's expectation: its trials change verdicts, so trials.jsonl is rewritten.
    const edited = writeTasksWithOneEdited(large.root);
    const rescoreEdited = await rescoreInChild(large.root, replay100k.runDir);
    const editedTotal = rescoreEdited.loadMs + rescoreEdited.rescoreMs;
    line(
      `4b. re-score after editing task ${edited}'s evidence: ${count(rescoreEdited.changed)} trials with changed verdicts, trials.jsonl rewritten, in ${seconds(editedTotal)} (${(replayTotal / editedTotal).toFixed(1)}× faster than replay)`,
    );

    // 5. Distinct tasks as whole processes (issue 20).
    const distinct = await distinctFigures(work, line);

    const totalMs = performance.now() - benchStarted;
    line(`bench finished in ${seconds(totalMs)}${keep ? `; suites and runs kept in ${work}` : ''}`);
    const json = {
      v: 1,
      date: new Date().toISOString(),
      machine: { ...machine, loadavg_at_end: os.loadavg() },
      targets: TARGETS,
      suite: {
        tasks: benchTasks().length,
        surfaces: BENCH_SURFACES.length,
        cassette_lines: { '10k': small.cassetteLines, '100k': large.cassetteLines },
      },
      replay: {
        trials_10k: { ...replay10k, runDir: undefined },
        cli_run_10k_wall_ms: cliRun.wallMs,
        trials_100k: { ...replay100k, runDir: undefined },
        met: {
          throughput: replay10k.throughput >= TARGETS.replayPerSecond,
          peak_rss: replay100k.max_rss_mb <= TARGETS.peakRssMb,
        },
      },
      live: {
        ...live,
        met: {
          efficiency: live.plain.efficiency >= TARGETS.efficiency,
          retries_intact: intact(live.throttled) && intact(live.plain),
        },
      },
      startup: { help, validate, met: help.medianMs < TARGETS.startupMs && validate.medianMs < TARGETS.startupMs },
      rescore: {
        ...rescore,
        replay_total_ms: replayTotal,
        rescore_total_ms: rescoreTotal,
        ratio,
        met: ratio >= TARGETS.rescoreRatio,
        rescore_cli_wall_ms: rescoreCli.wallMs,
        report_cli_wall_ms: reportCli.wallMs,
        after_edit: { ...rescoreEdited, task: edited, total_ms: editedTotal, ratio: replayTotal / editedTotal },
      },
      distinct,
      bench_wall_ms: totalMs,
    };
    mkdirSync(path.join(REPOSITORY, 'results'), { recursive: true });
    writeFileSync(path.join(REPOSITORY, 'results', 'bench.json'), `${JSON.stringify(json, null, 2)}\n`);
    line('wrote results/bench.json');
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

await main();
