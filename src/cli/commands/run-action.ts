import { writeSync } from 'node:fs';
import { ConfigError } from '../../spec/errors.ts';
import { displayPath } from '../cli-helpers.ts';
import type { RunSelection } from '../../spec/index.ts';
// Not through src/run/index.ts: the merge, sweep and re-score code it also loads (with the
// comparison's aggregates and pages) is not a run's, and would be compiled before its load starts.
import { resumeRun, runProject, type RunResult } from '../../run/run-project.ts';
import type { RunEvents } from '../../run/events.ts';
import { LiveStates } from '../../registry/index.ts';
import { formatRunFacts, formatSummaryTable } from '../summary-table.ts';
import { createProgress } from '../progress.ts';
import { fitHeapGrowth, releaseMemory } from '../heap-policy.ts';
import { createPhaseTimings, formatPhaseTimings } from '../phase-timings.ts';
import { guardFinishing } from '../finish-interrupt.ts';
import { releaseRunFolderLock } from '../../run-folder/index.ts';
import { guardUserExit } from '../user-exit-guard.ts';
import { watchStuckHandlers } from '../stuck-handler-watchdog.ts';
import { InFlightTrials } from '../../solve/index.ts';
import { reportBlockedRun } from '../blocked-run.ts';

// What `toolmark run` does once its flags are parsed: the run itself is
// src/run's (runProject, resumeRun). run.ts imports this module in the
// action, with the loader, SDKs and renderers, so `toolmark --help` stays
// fast; everything here is imported statically, as one module graph that
// node loads in parallel (one import() each was one round trip through
// node's loader after the other, and one more chunk of the build apiece).

export interface RunFlags {
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

/** Run (or resume) with these flags; the exit code through `setExitCode`. */
export async function runAction(flags: RunFlags, setExitCode: (code: number) => void): Promise<void> {
  const concurrency = positiveInteger('--concurrency', flags.concurrency);
  const selection = flags.resume ? undefined : selectionOf(flags);
  // The schema token counter is already starting (src/cli/main.ts, which also stops one left unused).
  const timings = flags.timings ? createPhaseTimings() : null;
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
  // A handler blocking the main thread: two Ctrl-Cs, or run.user_code_limit_ms, and the watchdog ends the process.
  // Started now so it is up when the trials begin (it acts only once armed).
  let blockedLine: (() => string) | null = null;
  const watchdog = watchStuckHandlers({
    report: () => {
      const resume = `toolmark run --resume ${displayPath(folder!)}`;
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
      fitHeapGrowth(info.planned);
      watchdog.arm({ runDir: info.runDir, resume: `toolmark run --resume ${displayPath(info.runDir)}`, limitMs });
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
          finishing = guardFinishing(folder, `toolmark run --resume ${displayPath(folder)}`);
      }
    },
    // The heap policy is the CLI's (src/cli/heap-policy.ts); the library only says where the phases meet, and the run's size.
    betweenPhases: releaseMemory,
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
