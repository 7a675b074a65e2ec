/**
 * Issue 16 items 10–13: gate and compare on small suites. The trials are
 * real: each runs through a live wire adapter (fake OpenAI server on
 * 127.0.0.1, real SDK, runner, registry and graders). A passing trial reads
 * the ticket the task asks about; a failing one answers without a call.
 * Every expected number is worked out by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { compareSides, evaluateGate, MIN_COMPARE_TASKS } from '../../src/aggregate/index.ts';
import { renderCompareMarkdown } from '../../src/report/compare-markdown.ts';
import { GateConfig, type Split, type TrialRecord } from '../../src/spec/index.ts';
import { fakeServerPerTest } from '../providers/fake-server.ts';
import { calls, says, ticketTask, wireTrial } from '../score/wire-trial.ts';

const startServer = fakeServerPerTest();

interface Spec {
  task: number;
  split: Split;
  pass: boolean;
}

/** One trial per spec, on `surface`, for `model`: ticket T-(101 + task). */
async function runTrials(
  specs: readonly Spec[],
  options: { surface?: string; model?: string } = {},
): Promise<TrialRecord[]> {
  const records: TrialRecord[] = [];
  for (const spec of specs) {
    const ticket = `T-${101 + spec.task}`;
    const task = {
      ...ticketTask(
        { id: `read-${ticket}`, kind: 'must-call', expect: { action: 'ticket.get', args: { ticket_id: ticket } } },
        spec.split,
      ),
    };
    const turns = spec.pass
      ? [calls(['get_ticket', { ticket_id: ticket }]), says('It is open.')]
      : [says('I cannot tell.')];
    const record = await wireTrial(startServer, { task, turns, surface: options.surface, model: options.model });
    expect(record.success).toBe(spec.pass);
    records.push(record);
  }
  return records;
}

const heldout = (count: number, pass: (index: number) => boolean, from = 0): Spec[] =>
  Array.from({ length: count }, (_, index) => ({ task: from + index, split: 'heldout', pass: pass(index) }));
const train = (count: number, pass: (index: number) => boolean, from = 0): Spec[] =>
  Array.from({ length: count }, (_, index) => ({ task: from + index, split: 'train', pass: pass(index) }));
const gate = (records: TrialRecord[], baseline: TrialRecord[], config: Record<string, unknown> = {}) =>
  evaluateGate({ runId: 'run', records }, { records: baseline }, GateConfig.parse(config));

describe('item 10: an underpowered gate says so, and config can make it fail', () => {
  it('6 held-out pairs, no drop: warns with the smallest detectable drop and the pairs needed', async () => {
    const baseline = await runTrials(heldout(6, () => true));
    const revision = await runTrials(
      heldout(6, () => true),
      { surface: 'typed-v3' },
    );
    const result = await gate(revision, baseline);
    // All 12 trials pass: no discordant pair, rate 1, so ψ = 2·1·0 = 0 and the MDE is the all-one-way alternative:
    // u = (√(6·(6 + zb² − za²)) − za·zb) / (6 + zb²) = (√(6 · 2.866867) − 1.649547) / 6.708326 = 0.372356; MDE = 1 − u² = 0.861351.
    expect(result.checks[0]).toMatchObject({ threshold: 'heldout_task_success_drop', pass: true, actual: 0 });
    expect(result.checks[0]!.limit).toBeCloseTo(0.861351, 5);
    expect(result.checks[0]!.power).toMatchObject({ n: 6, target: 0.1, underpowered: true });
    // Pairs for δ = 0.1 at ψ = max(0, 0.1): (za√0.1 + zb√(0.1 − 0.01))² / 0.01 = (0.619795 + 0.252486)² / 0.01 = 76.09 → 77.
    expect(result.checks[0]!.power!.pairsNeeded).toBe(77);
    expect(result.warnings).toEqual([
      'openai:wire-model typed-v3 vs openai:wire-model typed-v2: underpowered — with 6 paired held-out trials the gate can detect only a drop of 0.861 or more (α 0.05, power 0.8); detecting a drop of 0.100 (gate.detect_drop) needs about 77 pairs; set gate.require_power: true to fail such a gate',
    ]);
    expect(result.pass).toBe(true);

    const strict = await gate(revision, baseline, { require_power: true });
    expect(strict.pass).toBe(false);
    expect(strict.checks[0]).toMatchObject({ pass: false });
    expect(strict.checks[0]!.detail).toMatch(/n = 6 pairs — underpowered \(gate\.require_power\)$/);
    expect(strict.warnings[0]).toMatch(/gate\.require_power fails this check$/);

    // A gate asked only to see drops of 0.9 is powered with these 6 pairs (0.861 ≤ 0.9): no warning, passes even with require_power.
    const coarse = await gate(revision, baseline, { require_power: true, detect_drop: 0.9 });
    expect(coarse.warnings).toEqual([]);
    expect(coarse.pass).toBe(true);
  });
});

describe('item 11: the gate split is a setting, said at run time', () => {
  it('default held-out; gate.split: train measures the train drop', async () => {
    // Train: 6 tasks pass in the baseline and fail in the revision; held-out: 6 tasks pass on both.
    const baseline = await runTrials([...train(6, () => true), ...heldout(6, () => true, 10)]);
    const revision = await runTrials([...train(6, () => false), ...heldout(6, () => true, 10)], {
      surface: 'typed-v3',
    });

    const byDefault = await gate(revision, baseline);
    expect(byDefault.scope).toBe(
      'task_success drop measured on held-out tasks only (gate.split: heldout, the default)',
    );
    expect(byDefault.checks[0]).toMatchObject({ threshold: 'heldout_task_success_drop', pass: true, actual: 0 });

    const onTrain = await gate(revision, baseline, { split: 'train' });
    expect(onTrain.scope).toBe('task_success drop measured on train tasks only (gate.split: train)');
    // 6 of 6 pairs discordant (A pass, B fail): ψ = 1, drop 1.
    // MDE = (za√6 + zb√(6 + zb² − za²)) / (6 + zb²) = (4.800912 + 1.425017) / 6.708326 = 0.928090 < 1 → fails.
    expect(onTrain.checks[0]).toMatchObject({ threshold: 'train_task_success_drop', pass: false, actual: 1 });
    expect(onTrain.checks[0]!.limit).toBeCloseTo(0.92809, 4);
    expect(onTrain.checks[0]!.detail).toMatch(
      /^train task_success 1\.000 → 0\.000, drop 1\.000 > noise floor \(MDE\) 0\.928, n = 6 pairs$/,
    );

    // all: 12 pairs, 6 discordant → drop 0.5; ψ = 0.5. Connor's δ = √0.5 (za√12 + zb√(12 + zb² − za²)) / (12 + zb²)
    //   = 0.707107 · (6.789514 + 0.841621 · 2.977729) / 12.708326 = 0.517218 > ψ, so the all-one-way alternative applies:
    //   u = (√(12 · 8.866867) − za·zb) / 12.708326 = (10.315154 − 1.649547) / 12.708326 = 0.681884; MDE = 1 − u² = 0.535034 > 0.5 → passes.
    const onAll = await gate(revision, baseline, { split: 'all' });
    expect(onAll.checks[0]).toMatchObject({ threshold: 'all_task_success_drop', pass: true, actual: 0.5 });
    expect(onAll.checks[0]!.limit).toBeCloseTo(0.535034, 5);
  });
});

describe('item 12: a run with several providers is gated per provider', () => {
  it('RUN:typed-v3 against RUN:typed-v2 with three models: one drop check each', async () => {
    const models = ['m1', 'm2', 'm3'];
    const baseline: TrialRecord[] = [];
    const revision: TrialRecord[] = [];
    for (const model of models) {
      baseline.push(
        ...(await runTrials(
          heldout(2, () => true),
          { model },
        )),
      );
      // m2 loses one of its two held-out tasks in the revision.
      revision.push(
        ...(await runTrials(
          heldout(2, (index) => !(model === 'm2' && index === 0)),
          { surface: 'typed-v3', model },
        )),
      );
    }
    const result = await gate(revision, baseline);
    const drops = result.checks.filter((check) => check.threshold === 'heldout_task_success_drop');
    expect(drops.map((check) => [check.subject, check.actual])).toEqual([
      ['openai:m1 typed-v3 vs openai:m1 typed-v2', 0],
      ['openai:m2 typed-v3 vs openai:m2 typed-v2', 0.5],
      ['openai:m3 typed-v3 vs openai:m3 typed-v2', 0],
    ]);
    // Two pairs each: no drop is detectable (n = 2 < za² = 3.84), so each check passes and warns.
    expect(drops.every((check) => check.pass && check.limit === null)).toBe(true);
    expect(result.warnings).toHaveLength(3);
    expect(result.warnings[1]).toMatch(
      /^openai:m2 typed-v3 vs openai:m2 typed-v2: underpowered — with 2 paired held-out trials the gate can detect no drop at all \(too few pairs\)/,
    );
  });
});

describe('item 13: compare warns on a handful of tasks', () => {
  it(`fewer than ${MIN_COMPARE_TASKS} tasks: a warning per split; ${MIN_COMPARE_TASKS} tasks: none`, async () => {
    const few = await runTrials(heldout(3, () => false));
    const fewB = await runTrials(
      heldout(3, () => true),
      { surface: 'typed-v3' },
    );
    const side = (records: TrialRecord[], label: string) => ({
      label,
      runId: label,
      runDir: `/runs/${label}`,
      surface: null,
      records,
    });
    const comparison = await compareSides(side(few, 'a'), side(fewB, 'b'));
    // 3 pairs, all A fail / B pass: ψ = 1, MDE = (za√3 + zb√(3 + zb² − za²)) / (3 + zb²) — n = 3 < za² = 3.84, so none is detectable.
    expect(comparison.warnings).toEqual([
      'held-out: only 3 tasks paired (3 pairs), fewer than 10: the interval is resampled over 3 tasks and no change at all is detectable; read the verdicts as anecdotes, not evidence',
      'all splits: only 3 tasks paired (3 pairs), fewer than 10: the interval is resampled over 3 tasks and no change at all is detectable; read the verdicts as anecdotes, not evidence',
    ]);

    // The markdown (terminal and report.md) carries them under the held-out check.
    expect(renderCompareMarkdown(comparison)).toContain(
      '> **Warning** — held-out: only 3 tasks paired (3 pairs), fewer than 10:',
    );

    const ten = await runTrials(heldout(10, (index) => index < 5));
    const tenB = await runTrials(
      heldout(10, () => true),
      { surface: 'typed-v3' },
    );
    expect((await compareSides(side(ten, 'a'), side(tenB, 'b'))).warnings).toEqual([]);
  });
});
