import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareSides, type CompareInput } from '../../src/aggregate/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { renderCompareMarkdown } from '../../src/report/compare-markdown.ts';
import type { Comparison } from '../../src/spec/index.ts';
import { overfitPair, projectRoot, writeRun, type TrialSpec } from './runs.ts';

const REPO = resolve(import.meta.dirname, '../..');

function side(dir: string, surface: string | null = null, label = dir): CompareInput {
  return { label, runId: dir.split('/').at(-1)!, runDir: dir, surface, records: readTrials(dir) };
}

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO, 'bin/toolmark.js'), ...args], { cwd: REPO, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const metricOf = (comparison: Comparison, split: string, kind: string, metric: string) =>
  comparison.sections
    .find((section) => section.split === split && section.kind === kind)!
    .metrics.find((entry) => entry.metric === metric)!;

describe('compare two runs', () => {
  const root = projectRoot();
  const { a, b } = overfitPair();
  const dirA = writeRun(root, 'run-a', a);
  const dirB = writeRun(
    root,
    'run-b',
    b.map((spec) => ({ ...spec, schemaTokens: 350 })),
  );

  it('pairs by task and trial across surfaces and gives the exact McNemar p for b = 1, c = 8', async () => {
    const comparison = await compareSides(side(dirA), side(dirB));
    expect(comparison.pairing).toEqual({
      key: ['domain', 'task', 'trial'],
      pairs: 18,
      unpaired_a: 0,
      unpaired_b: 0,
      errored: 0,
      split_trials: false,
    });
    const success = metricOf(comparison, 'train', 'all', 'task_success');
    // Two-sided exact binomial: 2 · P(X ≤ 1 | n = 9, p = ½) = 2 · (C(9,0) + C(9,1)) / 2⁹ = 2 · 10 / 512.
    expect(success.mcnemar).toEqual({ b: 1, c: 8, p: (2 * (1 + 9)) / 512 });
    expect(success.mcnemar!.p).toBe(0.0390625);
    expect(success.a).toBeCloseTo(4 / 12, 12);
    expect(success.b).toBeCloseTo(11 / 12, 12);
    expect(success.difference).toBeCloseTo(7 / 12, 12);
    expect(success.low!).toBeGreaterThan(0);
    expect(success.resampled).toBe('tasks');
    expect(success.verdict).toBe('better');
    expect(metricOf(comparison, 'train', 'all', 'selection_accuracy').mcnemar).toEqual({ b: 1, c: 8, p: 0.0390625 });
  });

  it('lists the tasks that flipped each way and the schema-token difference', async () => {
    const comparison = await compareSides(side(dirA), side(dirB));
    const train = comparison.sections.find((section) => section.split === 'train' && section.kind === 'all')!;
    expect(train.flipped.better.map((task) => task.task)).toEqual([
      'tickets/train-0',
      'tickets/train-1',
      'tickets/train-2',
      'tickets/train-3',
      'tickets/train-4',
      'tickets/train-5',
      'tickets/train-6',
      'tickets/train-7',
    ]);
    expect(train.flipped.worse).toEqual([{ task: 'tickets/train-8', a: { c: 1, n: 1 }, b: { c: 0, n: 1 } }]);
    expect(train.schema_tokens).toEqual({ a: 400, b: 350, difference: -50 });
  });

  it('flags a train improvement that held-out does not confirm as likely overfit', async () => {
    const comparison = await compareSides(side(dirA), side(dirB));
    const heldout = metricOf(comparison, 'heldout', 'all', 'task_success');
    expect(heldout).toMatchObject({
      a: 0.5,
      b: 0.5,
      difference: 0,
      mcnemar: { b: 0, c: 0, p: 1 },
      verdict: 'no detectable change',
    });
    expect(comparison.heldout_check.status).toBe('overfit');
    expect(comparison.heldout_check.message).toContain('likely overfits the train tasks');
    expect(comparison.aa).toBe(false);
    expect(comparison.noise_floor).toEqual([]);
  });

  it('held-out improving as well confirms the change', async () => {
    const improved = overfitPair().b.map((spec): TrialSpec =>
      spec.split === 'heldout' ? { ...spec, outcome: 'pass' } : spec,
    );
    const heldoutA = overfitPair().a.map((spec): TrialSpec =>
      spec.split === 'heldout' ? { ...spec, outcome: 'fail' } : spec,
    );
    // 6 held-out tasks from fail to pass: McNemar p = 2 / 2⁶ = 0.03125
    const extra = Array.from({ length: 4 }, (_, index): [TrialSpec, TrialSpec] => [
      { task: `held-x${index}`, split: 'heldout', outcome: 'fail' },
      { task: `held-x${index}`, split: 'heldout', outcome: 'pass', surface: 'typed-v2' },
    ]);
    const dirC = writeRun(root, 'run-c', [...heldoutA, ...extra.map(([first]) => first)]);
    const dirD = writeRun(root, 'run-d', [...improved, ...extra.map(([, second]) => second)]);
    const comparison = await compareSides(side(dirC), side(dirD));
    expect(metricOf(comparison, 'heldout', 'all', 'task_success').mcnemar).toEqual({ b: 0, c: 10, p: 2 / 1024 });
    expect(comparison.heldout_check.status).toBe('confirmed');
  });

  it('drops pairs with an errored trial and counts them', async () => {
    const withError = b.map((spec, index) => (index === 0 ? { ...spec, outcome: 'errored' as const } : spec));
    const dirE = writeRun(root, 'run-e', withError);
    const comparison = await compareSides(side(dirA), side(dirE));
    expect(comparison.pairing).toMatchObject({ pairs: 17, errored: 1 });
    // 12 train + 6 held-out trials on each side; one of B's errored with the fixture's message.
    expect(comparison.a).toMatchObject({ trials: 18, errored: 0, first_error: null });
    expect(comparison.b).toMatchObject({ trials: 18, errored: 1, first_error: 'boom' });
    expect(metricOf(comparison, 'train', 'all', 'task_success').mcnemar).toEqual({
      b: 1,
      c: 7,
      p: (2 * (1 + 8)) / 256,
    });
  });

  it('renders markdown with both rates, the interval, p, verdicts and the held-out check', async () => {
    const markdown = renderCompareMarkdown(await compareSides(side(dirA), side(dirB)));
    expect(markdown).toContain('| task_success (n=12) | 33.3% | 91.7% | +58.3 pp [');
    expect(markdown).toContain('0.0391 (1/8)');
    expect(markdown).toContain('**better**');
    expect(markdown).toContain('likely overfits the train tasks');
    expect(markdown).toContain('schema tokens 400 → 350 (−50)');
    expect(markdown).toContain('## All splits');
  });

  it('the PR-comment form leaves out the `all` split and keeps train and held-out', async () => {
    const comparison = await compareSides(side(dirA), side(dirB));
    const full = renderCompareMarkdown(comparison);
    const compact = renderCompareMarkdown(comparison, { splits: ['train', 'heldout'] });
    expect(compact).not.toContain('## All splits');
    expect(compact).toContain('## Train');
    expect(compact).toContain('likely overfits the train tasks');
    expect(compact.split('\n').length).toBeLessThan(full.split('\n').length);
  });

  it('through the CLI: --json, run ids under --root, and the markdown table', () => {
    const json = cli(['compare', 'run-a', 'run-b', '--json', '--root', root]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const comparison = JSON.parse(json.stdout) as Comparison;
    expect(metricOf(comparison, 'train', 'all', 'task_success').mcnemar!.p).toBe(0.0390625);
    expect(comparison.heldout_check.status).toBe('overfit');
    const text = cli(['compare', dirA, dirB, '--split', 'heldout']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('## Held-out: 6 pairs');
    expect(text.stdout).not.toContain('## Train');
  });

  it('through the CLI: a side whose every trial errored is named with its first failure (issue 21 item 6)', () => {
    writeRun(
      root,
      'run-dead',
      b.map((spec) => ({ ...spec, outcome: 'errored' as const })),
    );
    const result = cli(['compare', 'run-a', 'run-dead', '--root', root]);
    expect(result.code).toBe(2);
    // 18 trials (12 train + 6 held-out), all errored with the fixture's HTTP 500 message "boom".
    expect(result.stderr).toMatch(
      /every trial of run-dead errored \(18 of 18, provider failures, nothing scored\): boom/,
    );
    expect(result.stderr).not.toMatch(/share no completed/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('through the CLI: errors split across the sides so that no pair completes say pairs were dropped', () => {
    // A errors on the even tasks, B on the odd ones: every pair has one errored side, neither side is all errored.
    writeRun(
      root,
      'run-even',
      a.map((spec, index) => (index % 2 === 0 ? { ...spec, outcome: 'errored' as const } : spec)),
    );
    writeRun(
      root,
      'run-odd',
      b.map((spec, index) => (index % 2 === 1 ? { ...spec, outcome: 'errored' as const } : spec)),
    );
    const result = cli(['compare', 'run-even', 'run-odd', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/all 18 pairs were dropped because a trial errored/);
    expect(result.stderr).not.toMatch(/every trial of/);
  });

  it('through the CLI: an unknown run is bad input (exit 2, no stack trace)', () => {
    const result = cli(['compare', 'run-a', 'run-zz', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no run folder "run-zz"/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('A/A compare: the noise floor', () => {
  const root = projectRoot();
  const { a } = overfitPair();

  it('two runs of the same configuration report the noise floor', async () => {
    const dirA = writeRun(root, 'aa-1', a);
    const dirB = writeRun(root, 'aa-2', a);
    const comparison = await compareSides(side(dirA), side(dirB));
    expect(comparison.aa).toBe(true);
    for (const section of comparison.sections)
      for (const metric of section.metrics) expect(metric.verdict).not.toMatch(/better|worse/);
    const floor = comparison.noise_floor.find((entry) => entry.split === 'all' && entry.metric === 'task_success')!;
    expect(floor).toMatchObject({ n: 18, difference: 0, low: 0, high: 0 });
    expect(floor.mde).toBeGreaterThan(0);
    expect(renderCompareMarkdown(comparison)).toContain('## Noise floor (A/A)');
  });

  it('the same surface of one run pairs even with odd trials', async () => {
    const trials: TrialSpec[] = [];
    for (let index = 0; index < 5; index += 1) {
      for (let trial = 0; trial < 4; trial += 1)
        trials.push({ task: `t${index}`, split: 'train', trial, outcome: (index + trial) % 3 === 0 ? 'fail' : 'pass' });
    }
    writeRun(root, 'single', trials);
    const result = cli(['compare', '--run', 'single', 'typed', 'typed', '--json', '--root', root]);
    expect(result.code).toBe(0);
    const comparison = JSON.parse(result.stdout) as Comparison;
    expect(comparison.pairing).toMatchObject({ pairs: 10, split_trials: true });
    expect(comparison.aa).toBe(true);
    expect(comparison.noise_floor.length).toBeGreaterThan(0);
  });

  it('two folders of one run (a re-scored copy) pair each trial with itself: not an A/A, and the report says why', async () => {
    const dirA = writeRun(root, 'copied', a);
    const dirB = join(dirname(dirA), 'copied-rescored');
    cpSync(dirA, dirB, { recursive: true });
    // The CLI takes each side's run id from its manifest: the copy keeps the original's.
    const comparison = await compareSides(side(dirA), { ...side(dirB), runId: 'copied' });
    expect(comparison.a.run_id).toBe(comparison.b.run_id);
    expect(comparison.aa).toBe(false);
    expect(comparison.noise_floor).toEqual([]);
    const markdown = renderCompareMarkdown(comparison);
    expect(markdown).toContain('**The same run in two folders**');
    expect(markdown).not.toContain('A/A');
  });

  it('an unknown surface is bad input listing the surfaces', () => {
    const result = cli(['compare', 'single:typed', 'single:typo', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('one of: typed');
  });
});
