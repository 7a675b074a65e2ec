import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';

// A resumed run whose trial browser shows passes from both sides of the crash.
// The trial sample keeps a pass the runner writes as the place of its line in
// trials.jsonl and reads the line back only when report.html shows it
// (src/report/trial-sample.ts); a resumed run's earlier trials come back as
// records. So the places must point into the repaired file (torn tail
// dropped), not into the file as the crash left it. The shipped project's
// replay cassettes give passes and failures (the scripted provider of
// cli-run.test.ts never passes).
const root = path.resolve(import.meta.dirname, '../..');
const args = ['run', '--root', root, '--domain', 'tickets', '--task', 'tickets-s*', '--trials', '2', '--out'];
let out: string;

beforeEach(() => {
  out = mkdtempSync(path.join(tmpdir(), 'toolmark-resume-passes-'));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(out, { recursive: true, force: true });
});

type ShownTrial = { provider: string; surface: string; task: string; trial: number; outcome: string };

/** The trials report.html embeds for its trial browser, as the page's script reads them. */
function shownTrials(runDir: string): ShownTrial[] {
  const html = readFileSync(path.join(runDir, 'report.html'), 'utf8');
  const start = html.indexOf('<script type="application/json" id="trial-data">');
  expect(start).toBeGreaterThan(0);
  const body = html.slice(html.indexOf('>', start) + 1, html.indexOf('</script>', start));
  return (JSON.parse(body) as { trials: ShownTrial[] }).trials;
}

const key = (trial: { provider: string; surface: string; task: string; trial: number }) =>
  `${trial.provider}/${trial.surface}/${trial.task}/${trial.trial}`;

describe('a resumed run with passes before and after the crash', () => {
  it('shows in report.html exactly the trials of an uninterrupted run, passes read from the repaired file', async () => {
    expect(await main([...args, out, '--run-id', 'whole'])).toBe(0);
    const whole = shownTrials(path.join(out, 'whole'));
    expect(await main([...args, out, '--run-id', 'crashed'])).toBe(0);

    // The crash: the first half of the lines kept, the next one torn.
    const file = path.join(out, 'crashed', RUN_FILES.trials);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const kept = Math.floor(lines.length / 2);
    writeFileSync(file, `${lines.slice(0, kept).join('\n')}\n${lines[kept]!.slice(0, 57)}`);
    expect(await main(['run', '--root', root, '--out', out, '--resume', 'crashed'])).toBe(0);

    // Passes on both sides: kept from before the crash, and run again after it.
    const passed = (line: string) => (JSON.parse(line) as TrialRecord).verdicts.every((verdict) => verdict.pass);
    const before = new Set(
      lines
        .slice(0, kept)
        .filter(passed)
        .map((line) => key(JSON.parse(line) as TrialRecord)),
    );
    const after = new Set(
      lines
        .slice(kept)
        .filter(passed)
        .map((line) => key(JSON.parse(line) as TrialRecord)),
    );
    expect(before.size).toBeGreaterThan(10);
    expect(after.size).toBeGreaterThan(10);

    const resumed = shownTrials(path.join(out, 'crashed'));
    expect(resumed).toEqual(whole);
    // Every trial fits under the sample's cap here, so every pass is shown, each as its own trial.
    const shownPasses = new Set(resumed.filter((trial) => trial.outcome === 'pass').map(key));
    expect(shownPasses).toEqual(new Set([...before, ...after]));
  });
});
