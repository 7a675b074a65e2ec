/**
 * `toolmark run --timings`: where a whole run's time went, phase by phase,
 * printed to stderr at the end (never into the run folder, so a run's files
 * are the same with or without it). Wall time counts from the process's
 * start (`performance.now()` is measured from node's time origin), so
 * "start-up" is node, the launcher and the CLI's imports; CPU time is the
 * process's (all threads), since on a shared machine wall time also counts
 * waiting for other processes. The bench (docs/performance.md) reads the
 * JSON after `timings: `.
 */

export interface PhaseTiming {
  phase: string;
  wall_ms: number;
  cpu_ms: number;
}

export interface PhaseTimings {
  /** A phase begins (the previous one ends here). */
  mark(phase: string): void;
  /** End the last phase; the phases with the process's peak RSS. */
  finish(): { phases: PhaseTiming[]; wall_ms: number; cpu_ms: number; peak_rss_mb: number };
}

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

export function createPhaseTimings(): PhaseTimings {
  const marks: { phase: string; wall: number; cpu: number }[] = [{ phase: 'start-up', wall: 0, cpu: 0 }];
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    mark: (phase) => void marks.push({ phase, wall: performance.now(), cpu: cpuMs() }),
    finish: () => {
      const end = { wall: performance.now(), cpu: cpuMs() };
      const phases = marks.map((mark, index) => {
        const next = marks[index + 1] ?? end;
        return { phase: mark.phase, wall_ms: round(next.wall - mark.wall), cpu_ms: round(next.cpu - mark.cpu) };
      });
      // maxRSS is in KiB.
      const peak_rss_mb = round(process.resourceUsage().maxRSS / 1024);
      return { phases, wall_ms: round(end.wall), cpu_ms: round(end.cpu), peak_rss_mb };
    },
  };
}

/** The line `--timings` prints. */
export function formatPhaseTimings(result: ReturnType<PhaseTimings['finish']>): string {
  return `timings: ${JSON.stringify(result)}\n`;
}
