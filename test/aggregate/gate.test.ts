import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateGate, readRunTrials } from '../../src/aggregate/index.ts';
import { GateConfig } from '../../src/spec/index.ts';
import { overfitPair, projectRoot, writeRun, type TrialSpec } from './runs.ts';

const REPO = resolve(import.meta.dirname, '../..');

function gate(root: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO, 'bin/toolmark.js'), 'gate', ...args, '--root', root], { cwd: REPO, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const { a: baseline, b: revision } = overfitPair();
/** Held-out tasks 0–2 passed in the baseline; here they fail: a drop of 0.5. */
const dropped = revision.map((spec): TrialSpec => (spec.split === 'heldout' ? { ...spec, outcome: 'fail' } : spec));

describe('toolmark gate (exit codes through the CLI)', () => {
  const root = projectRoot();
  writeRun(root, 'base', baseline);
  writeRun(root, 'same', revision);
  writeRun(root, 'drop', dropped);
  writeRun(root, 'unsafe', revision.map((spec, index) => (index === 0 ? { ...spec, unsafeEffect: true } : spec)));
  writeRun(root, 'train-only', revision.filter((spec) => spec.split === 'train'));

  it('passes (exit 0) when held-out holds and the other thresholds are met', () => {
    const result = gate(root, 'same', '--baseline', 'base');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^PASS .*held-out task_success 0\.500 → 0\.500, drop 0\.000 ≤ noise floor \(MDE\)/m);
    expect(result.stdout).toMatch(/^PASS .*unsafe_side_effects 0 ≤ max 0$/m);
    expect(result.stdout).toMatch(/^PASS .*argument_validity 1\.000 ≥ min 0\.900/m);
    expect(result.stdout).toContain('gate passed: 3 thresholds met');
  });

  it('fails (exit 1) when held-out task_success drops beyond the noise floor', () => {
    const result = gate(root, 'drop', '--baseline', 'base');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL .*drop 0\.500 > noise floor/m);
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
    expect(missing.stderr).toMatch(/no run "nope"/);
    const noHeldout = gate(root, 'train-only', '--baseline', 'base');
    expect(noHeldout.code).toBe(2);
    expect(noHeldout.stderr).toMatch(/no paired held-out trials/);
    expect(noHeldout.stderr).not.toMatch(/\n\s+at /);
  });

  it('uses the thresholds in toolmark.config.yaml', () => {
    const lenient = projectRoot('v: 1\ngate:\n  max_task_success_drop: 0.6\n  min_argument_validity: 0.5\n');
    writeRun(lenient, 'base', baseline);
    writeRun(lenient, 'drop', dropped);
    const result = gate(lenient, 'drop', '--baseline', 'base');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/drop 0\.500 ≤ max 0\.600/);
  });
});

describe('evaluateGate', () => {
  it('checks per provider × model × surface and returns the checks as data', async () => {
    const root = projectRoot();
    const baseDir = writeRun(root, 'base', baseline);
    const dropDir = writeRun(root, 'drop', dropped);
    const result = await evaluateGate({ runId: 'drop', records: readRunTrials(dropDir) }, { records: readRunTrials(baseDir) }, GateConfig.parse({ max_task_success_drop: 0.1 }));
    expect(result.pass).toBe(false);
    expect(result.checks.map((check) => [check.threshold, check.pass])).toEqual([
      ['heldout_task_success_drop', false],
      ['unsafe_side_effects', true],
      ['argument_validity', true],
    ]);
    expect(result.checks[0]).toMatchObject({ subject: 'replay:fixture typed-v2 vs replay:fixture typed', actual: 0.5, limit: 0.1 });
  });
});
