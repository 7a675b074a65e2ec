import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateGate } from '../../src/aggregate/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { GateConfig } from '../../src/spec/index.ts';
import { overfitPair, projectRoot, writeRun, type TrialSpec } from './runs.ts';

const REPO = resolve(import.meta.dirname, '../..');

function gate(root: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO, 'bin/toolmark.js'), 'gate', ...args, '--root', root], {
    cwd: REPO,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const { a: baseline, b: revision } = overfitPair();

/** 30 held-out tasks that all pass in the baseline; in the regressed run 20 of them fail (a drop of 2/3). */
const wideBaseline: TrialSpec[] = Array.from({ length: 30 }, (_, index) => ({
  task: `h${index}`,
  split: 'heldout',
  outcome: 'pass',
}));
const dropped: TrialSpec[] = wideBaseline.map((spec, index) => ({
  ...spec,
  surface: 'typed-v2',
  outcome: index < 20 ? 'fail' : 'pass',
}));

describe('toolmark gate (exit codes through the CLI)', () => {
  const root = projectRoot();
  writeRun(root, 'base', baseline);
  writeRun(root, 'same', revision);
  writeRun(root, 'wide-base', wideBaseline);
  writeRun(root, 'drop', dropped);
  writeRun(
    root,
    'unsafe',
    revision.map((spec, index) => (index === 0 ? { ...spec, unsafeEffect: true } : spec)),
  );
  writeRun(
    root,
    'train-only',
    revision.filter((spec) => spec.split === 'train'),
  );

  it('passes (exit 0) when held-out holds and the other thresholds are met', () => {
    const result = gate(root, 'same', '--baseline', 'base');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^PASS .*held-out task_success 0\.500 → 0\.500, drop 0\.000 ≤ noise floor \(MDE\)/m);
    expect(result.stdout).toMatch(/^PASS .*unsafe_side_effects 0 ≤ max 0$/m);
    expect(result.stdout).toMatch(/^PASS .*argument_validity 1\.000 ≥ min 0\.900/m);
    expect(result.stdout).toContain('gate passed: 3 thresholds met');
    // The split is said at run time, and a gate that could not see a drop of 0.1 says so (issue 16 items 10, 11).
    expect(result.stdout).toMatch(
      /^gate: same against baseline base; task_success drop measured on held-out tasks only \(gate\.split: heldout, the default\)$/m,
    );
    expect(result.stdout).toMatch(
      /^warn {2}.*underpowered — with 6 paired held-out trials the gate can detect only a drop of 0\.\d+ or more .* needs about \d+ pairs; set gate\.require_power: true to fail such a gate$/m,
    );
  });

  it('fails (exit 1) an underpowered gate with gate.require_power: true', () => {
    const strict = projectRoot('v: 1\ngate:\n  require_power: true\n');
    writeRun(strict, 'base', baseline);
    writeRun(strict, 'same', revision);
    const result = gate(strict, 'same', '--baseline', 'base');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL .*n = 6 pairs — underpowered \(gate\.require_power\)$/m);
  });

  it('fails (exit 1) when held-out task_success drops beyond the noise floor', () => {
    // With 6 held-out pairs a drop of 0.5 is within the noise floor (MDE 0.861): the gate cannot call it.
    const small = gate(root, 'same', '--baseline', 'base');
    expect(small.stdout).toMatch(/≤ noise floor \(MDE\) 0\.\d+, n = 6 pairs/);
    const result = gate(root, 'drop', '--baseline', 'wide-base');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL .*held-out task_success 1\.000 → 0\.333, drop 0\.667 > noise floor \(MDE\) 0\.\d+, n = 30 pairs/m,
    );
    expect(result.stdout).toContain('gate failed: 1 of 3 thresholds not met');
  });

  it('fails (exit 1) on an unsafe side effect', () => {
    const result = gate(root, 'unsafe', '--baseline', 'base');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL .*unsafe_side_effects 1 > max 0$/m);
  });

  it('bad input exits 2: unknown baseline, or nothing held-out to pair', () => {
    const missing = gate(root, 'same', '--baseline', 'nope');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run folder "nope"/);
    const noHeldout = gate(root, 'train-only', '--baseline', 'base');
    expect(noHeldout.code).toBe(2);
    expect(noHeldout.stderr).toMatch(/no paired held-out trials/);
    expect(noHeldout.stderr).not.toMatch(/\n\s+at /);
  });

  it('uses the thresholds in toolmark.config.yaml', () => {
    const lenient = projectRoot('v: 1\ngate:\n  max_task_success_drop: 0.7\n  min_argument_validity: 0.5\n');
    writeRun(lenient, 'base', wideBaseline);
    writeRun(lenient, 'drop', dropped);
    const result = gate(lenient, 'drop', '--baseline', 'base');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/drop 0\.667 ≤ max 0\.700/);
    expect(result.stdout).toMatch(/argument_validity 1\.000 ≥ min 0\.500/);
  });
});

describe('evaluateGate', () => {
  it('checks per provider × model × surface and returns the checks as data', async () => {
    const root = projectRoot();
    const baseDir = writeRun(root, 'base', wideBaseline);
    const dropDir = writeRun(root, 'drop', dropped);
    const result = await evaluateGate(
      { runId: 'drop', records: readTrials(dropDir) },
      { records: readTrials(baseDir) },
      GateConfig.parse({ max_task_success_drop: 0.1 }),
    );
    expect(result.pass).toBe(false);
    expect(result.checks.map((check) => [check.threshold, check.pass])).toEqual([
      ['heldout_task_success_drop', false],
      ['unsafe_side_effects', true],
      ['argument_validity', true],
    ]);
    expect(result.checks[0]).toMatchObject({ subject: 'replay:fixture typed-v2 vs replay:fixture typed', limit: 0.1 });
    expect(result.checks[0]!.actual).toBeCloseTo(2 / 3, 12);
  });
});
