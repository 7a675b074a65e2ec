import { writeSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../../spec/errors.ts';
import { collect, displayPath } from '../cli-helpers.ts';
import type { RunSelection } from '../../spec/index.ts';
import type { RunEvents, RunResult } from '../../run/index.ts';
import { providerUsage } from '../../../providers/table.ts';

// The run itself is src/run's (runProject, resumeRun), imported inside the
// action with the loader, SDKs and renderers, so `toolmark --help` stays fast.

interface RunFlags {
  provider: string[];
  surface: string[];
  split?: string;
  trials?: string;
  concurrency?: string;
  domain: string[];
  task?: string;
  record?: string;
  resume?: string;
  shard?: string;
  out?: string;
  runId?: string;
  allowStale?: boolean;
  toolTime?: string;
  root?: string;
  timings?: boolean;
}

function positiveInteger(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError({
      file: flag,
      field: text,
      message: 'not a positive whole number',
      expected: 'an integer ≥ 1',
    });
  return value;
}

/** A flag whose value is one of a few words. */
function oneOf<T extends string>(
  flag: string,
  text: string | undefined,
  words: readonly T[],
  what: string,
): T | undefined {
  if (text === undefined) return undefined;
  if ((words as readonly string[]).includes(text)) return text as T;
  throw new ConfigError({
    file: flag,
    field: text,
    message: `unknown ${what} "${text}"`,
    expected: `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`,
  });
}

/** The flags as a run selection: what was given; the library fills the rest from the config. */
function selectionOf(flags: RunFlags): Partial<RunSelection> {
  return {
    providers: flags.provider,
    surfaces: flags.surface,
    split: oneOf('--split', flags.split, ['train', 'heldout', 'all'], 'split'),
    trials: positiveInteger('--trials', flags.trials),
    domains: flags.domain,
    task: flags.task ?? null,
    shard: flags.shard ?? null,
    allow_stale: flags.allowStale ?? false,
    tool_time: oneOf('--tool-time', flags.toolTime, ['auto', 'real', 'simulated'], 'tool time'),
  };
}

async function runAction(flags: RunFlags, setExitCode: (code: number) => void): Promise<void> {
  const concurrency = positiveInteger('--concurrency', flags.concurrency);
  const selection = flags.resume ? undefined : selectionOf(flags);
  // The schema token counter is already starting (src/cli/main.ts); one a resume that fails
  // early leaves unused is stopped at the end (runProject stops a new run's itself).
  const { stopSchemaCounter } = await import('../../cost/schema-cost.ts');
  const { runProject, resumeRun } = await import('../../run/index.ts');
  const { LiveStates } = await import('../../registry/index.ts');
  const { formatSummaryTable, formatRunFacts } = await import('../summary-table.ts');
  const { createProgress } = await import('../progress.ts');
  const { releaseMemory } = await import('../heap-policy.ts');
  const { createPhaseTimings, formatPhaseTimings } = await import('../phase-timings.ts');
  const timings = flags.timings ? createPhaseTimings() : null;
  const { guardFinishing } = await import('../finish-interrupt.ts');
  const { releaseRunFolderLock } = await import('../../run-folder/index.ts');
  const { displayPath: shownPath } = await import('../cli-helpers.ts');
  const { guardUserExit } = await import('../user-exit-guard.ts');
  const { watchStuckHandlers } = await import('../stuck-handler-watchdog.ts');
  const { InFlightTrials } = await import('../../solve/index.ts');
  const { reportBlockedRun } = await import('../blocked-run.ts');
  const root = flags.root ?? '.';

  // Ctrl-C once: schedule nothing more, let trials in flight finish.
  // Twice: leave now (trials.jsonl holds whole lines plus at most one torn line, which resume drops).
  const stop = new AbortController();
  // Domain states of trials in flight: quitting at once still tears them down (servers, temp folders).
  const live = new LiveStates();
  // The trials in flight: one blocked by user code past run.user_code_limit_ms is recorded as errored.
  const inFlight = new InFlightTrials();
  const realExit = process.exit.bind(process);
  const onInterrupt = () => {
    watchdog.answered();
    if (stop.signal.aborted) {
      exitGuard?.restore();
      // Quitting at once: the finished trials a batched append still holds are written first, and the
      // folder's lock goes too (a resume would take a stale one over, with a note).
      inFlight.saveFinished();
      if (folder !== null) releaseRunFolderLock(folder);
      void live.drain().finally(() => process.exit(130));
      return;
    }
    stop.abort();
    process.stderr.write('\ninterrupted: finishing the trials in flight (Ctrl-C again to quit now)…\n');
  };
  // Made when the plan is known: a live run without a terminal logs lines, an offline one stays quiet.
  let progress: ReturnType<typeof createProgress> | null = null;
  let trialsRunning = false;
  // process.exit by user code while the trials run: refused, reported at the end (exit 2).
  let exitGuard: ReturnType<typeof guardUserExit> | null = null;
  let folder: string | null = null;
  let limitMs = 0;
  // Trials planned, once the plan is known: by it the heap policy decides on a release before the reports.
  let planned: number | undefined;
  // A handler blocking the main thread: two Ctrl-Cs, or run.user_code_limit_ms, and the watchdog ends the process.
  // Started now so it is up when the trials begin (it acts only once armed).
  let blockedLine: (() => string) | null = null;
  const watchdog = watchStuckHandlers({
    report: () => {
      const resume = `toolmark run --resume ${shownPath(folder!)}`;
      blockedLine = reportBlockedRun(inFlight, { runDir: folder!, limitMs, resume });
      stop.abort();
    },
    saveFinished: () => inFlight.saveFinished(),
    cleanUp: () => {
      progress?.stop();
      if (folder !== null) releaseRunFolderLock(folder);
    },
    exit: (code) => {
      if (blockedLine) writeSync(2, blockedLine());
      return realExit(code);
    },
  });
  // Ctrl-C once the trials are done: the summary and reports are written together or not at all.
  let finishing: (() => void) | null = null;
  const trialsDone = () => {
    if (!trialsRunning) return;
    trialsRunning = false;
    progress?.stop();
    process.off('SIGINT', onInterrupt);
    exitGuard?.restore();
    watchdog.stop();
  };
  const events: RunEvents = {
    onNote: (note) => process.stderr.write(`note: ${note}\n`),
    onStart: (info) => {
      folder = info.runDir;
      limitMs = info.userCodeLimitMs;
      planned = info.total;
      watchdog.arm({ runDir: info.runDir, resume: `toolmark run --resume ${shownPath(info.runDir)}`, limitMs });
      progress = createProgress(process.stderr, undefined, { log: info.live });
      progress.start(info);
    },
    onTrial: (record) => progress?.tick(record),
    onRetry: (note, where) =>
      progress?.note(
        `retry: ${where.provider}:${where.model} ${where.domain}/${where.task}/${where.surface} trial ${where.trial}: attempt ${note.attempt} failed (${note.failure}); retrying in ${note.waitedMs} ms`,
      ),
    onPhase: (phase) => {
      timings?.mark(phase);
      if (phase === 'trials') {
        trialsRunning = true;
        exitGuard = guardUserExit();
        process.on('SIGINT', onInterrupt);
      } else {
        trialsDone();
        if (finishing === null && folder !== null)
          finishing = guardFinishing(folder, `toolmark run --resume ${shownPath(folder)}`);
      }
    },
    // The heap policy is the CLI's (src/cli/heap-policy.ts); the library only says where the phases meet.
    betweenPhases: () => releaseMemory(planned),
  };
  let result: RunResult;
  try {
    const common = {
      root,
      concurrency,
      record: flags.record,
      out: flags.out,
      stop: stop.signal,
      live,
      inFlight,
      events,
    };
    result = flags.resume
      ? await resumeRun({ ...common, run: flags.resume, allowStale: flags.allowStale })
      : await runProject({ ...common, selection, runId: flags.runId });
  } finally {
    trialsDone();
    // Also when the run failed before its trials (a config error): the idle worker ends.
    watchdog.stop();
    stopSchemaCounter();
    (finishing as (() => void) | null)?.();
  }

  timings?.mark('output');
  const { outcome, runId, runDir, summary, manifest, facts } = result;
  const shown = displayPath(runDir);
  process.stdout.write(`${formatSummaryTable(summary, { manifest })}\n\n${formatRunFacts(facts)}`);
  const repaired = outcome.repairedBytes > 0 ? `, dropped a torn last line (${outcome.repairedBytes} bytes)` : '';
  process.stdout.write(
    `run ${runId}: ${outcome.ran} trials run, ${outcome.skipped} already done, ${outcome.errored} errored${repaired} → ${shown}/\n`,
  );
  (exitGuard as ReturnType<typeof guardUserExit> | null)?.report(setExitCode);
  if (outcome.stopped) {
    const { provider, model, message } = outcome.stopped;
    process.stderr.write(
      `error: run stopped early (${provider}:${model}): ${message}. ${outcome.planned - outcome.ran - outcome.skipped} planned trials not run; fix the cause and start a new run.\n`,
    );
    setExitCode(2);
  } else if (outcome.interrupted) {
    process.stdout.write(
      `interrupted with ${outcome.planned - outcome.ran - outcome.skipped} trials left; continue with: toolmark run --resume ${shown}\n`,
    );
    setExitCode(130);
  }
  // Last, so the terminal ends with what to open.
  process.stdout.write(`report: ${shown}/report.html\n`);
  if (timings) process.stderr.write(formatPhaseTimings(timings.finish()));
}

/** `toolmark run`: providers × surfaces × tasks × trials, streamed to results/<run-id>/. */
export function describe(program: Command, setExitCode: (code: number) => void): Command {
  return program
    .command('run')
    .description('Run tasks × surfaces × trials against providers; stream each trial to results/<run-id>/trials.jsonl')
    .option('--provider <spec>', providerUsage(), collect, [])
    .option('--surface <id>', 'surface id (repeatable; default: all)', collect, [])
    .option('--split <split>', 'train | heldout | all')
    .option('--trials <n>', 'trials per task × surface × provider')
    .option('--concurrency <n>', 'trials run at once')
    .option('--domain <name>', 'domain to run (repeatable; default: all)', collect, [])
    .option('--task <glob>', 'only tasks whose id matches (* and ?)')
    .option('--record <file>', 'write every model turn to this cassette (JSONL)')
    .option('--resume <run>', 'continue an interrupted run (run id or folder)')
    .option('--shard <i/n>', 'run only shard i of n (CI matrix); merge with `toolmark merge`')
    .option('--out <dir>', 'results folder (default from config: results)')
    .option('--run-id <id>', 'run id (default: timestamp + random suffix)')
    .option('--allow-stale', 'replay cassettes even when the surface or task changed since recording')
    .option(
      '--tool-time <mode>',
      'auto | real | simulated: simulated time runs tool sleeps (simulated latency, timeouts) without waiting; auto = simulated when every provider is offline (default from config: auto)',
    )
    .option('--root <dir>', 'project root (default: current folder)')
    .option('--timings', 'print wall and CPU time of each phase and the peak RSS to stderr at the end (JSON)')
    .action(async (flags: RunFlags) => runAction(flags, setExitCode));
}
