import type { GateConfig, Price, SummaryGroup, TrialRecord } from '../spec/index.ts';
import { createAggregator } from './aggregator.ts';
import { ALPHA, compareMetric, PAIRED_METRICS } from './compare-metric.ts';
import { collectTrials, compactTrial, pairTrials, type CompactTrial } from './pairing.ts';
import { POWER, powerFor, type PowerCheck } from './power.ts';

/** One threshold, checked for one provider × model × surface. */
export interface GateCheck {
  threshold: `${GateConfig['split']}_task_success_drop` | 'unsafe_side_effects' | 'argument_validity' | 'run_errored';
  subject: string;
  pass: boolean;
  actual: number | null;
  limit: number | null;
  detail: string;
  /** Drop checks: what the paired tasks could detect (src/aggregate/power.ts). */
  power?: PowerCheck;
}

export interface GateResult {
  pass: boolean;
  checks: GateCheck[];
  /** Which tasks the drop is measured on, said at run time (the `split` setting). */
  scope: string;
  /** Results that cannot be trusted as they stand (an underpowered drop check). */
  warnings: string[];
  /** Things worth knowing that do not fail the gate (errored trials, subjects with no baseline). */
  notes: string[];
}

/** The gate cannot be evaluated (e.g. nothing to pair): bad input, exit 2. */
export class GateInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateInputError';
  }
}

const TASK_SUCCESS = PAIRED_METRICS.find((metric) => metric.name === 'task_success')!;
const subjectOf = (trial: { provider: string; model: string; surface: string }) =>
  `${trial.provider}:${trial.model} ${trial.surface}`;
const fixed = (value: number) => value.toFixed(3);
const SPLIT_WORDS: Record<GateConfig['split'], string> = { heldout: 'held-out', train: 'train', all: 'all' };

/** What `gate.split` means, printed with the result. */
export function gateScope(split: GateConfig['split']): string {
  const tasks = split === 'all' ? 'train and held-out tasks' : `${SPLIT_WORDS[split]} tasks only`;
  return `task_success drop measured on ${tasks} (gate.split: ${split}${split === 'heldout' ? ', the default' : ''})`;
}

const triple = (trial: CompactTrial) => ({ subject: subjectOf(trial), model: `${trial.provider}:${trial.model}` });

/**
 * Which run subject (provider:model surface) is checked against which
 * baseline subject: the same subject when the baseline has it; else, per
 * provider × model, the only unmatched surface on each side (a revision run
 * against its parent, any number of providers); else, when each side has
 * exactly one subject, those two.
 */
export function matchSubjects(run: readonly CompactTrial[], baseline: readonly CompactTrial[]): [string, string][] {
  const subjectsByModel = (trials: readonly CompactTrial[]) => {
    const map = new Map<string, Set<string>>();
    for (const trial of trials) {
      const { subject, model } = triple(trial);
      if (!map.has(model)) map.set(model, new Set());
      map.get(model)!.add(subject);
    }
    return map;
  };
  const runModels = subjectsByModel(run);
  const baselineModels = subjectsByModel(baseline);
  const runSubjects = [...runModels.values()].flatMap((set) => [...set]).sort();
  const baselineSubjects = new Set([...baselineModels.values()].flatMap((set) => [...set]));
  const matches: [string, string][] = [];
  const matchedBaseline = new Set<string>();
  for (const subject of runSubjects) {
    if (baselineSubjects.has(subject)) {
      matches.push([subject, subject]);
      matchedBaseline.add(subject);
    }
  }
  const matchedRun = new Set(matches.map(([subject]) => subject));
  for (const [model, subjects] of [...runModels].sort(([left], [right]) => left.localeCompare(right))) {
    const runLeft = [...subjects].filter((subject) => !matchedRun.has(subject));
    const baselineLeft = [...(baselineModels.get(model) ?? [])].filter((subject) => !matchedBaseline.has(subject));
    if (runLeft.length === 1 && baselineLeft.length === 1) {
      matches.push([runLeft[0]!, baselineLeft[0]!]);
      matchedRun.add(runLeft[0]!);
      matchedBaseline.add(baselineLeft[0]!);
    }
  }
  if (matches.length === 0 && runSubjects.length === 1 && baselineSubjects.size === 1)
    matches.push([runSubjects[0]!, [...baselineSubjects][0]!]);
  return matches.sort(([left], [right]) => left.localeCompare(right));
}

function dropChecks(
  run: readonly CompactTrial[],
  baseline: readonly CompactTrial[],
  gate: GateConfig,
  warnings: string[],
  notes: string[],
): GateCheck[] {
  const runSubjects = [...new Set(run.map(subjectOf))].sort();
  const baselineSubjects = [...new Set(baseline.map(subjectOf))].sort();
  const matches = matchSubjects(run, baseline);
  const words = SPLIT_WORDS[gate.split];
  for (const subject of runSubjects) {
    if (!matches.some(([runSubject]) => runSubject === subject))
      notes.push(`${subject}: not in the baseline, ${words} drop not checked`);
  }
  if (matches.length === 0)
    throw new GateInputError(
      `nothing to compare: the run has ${runSubjects.join(', ') || 'no trials'}; the baseline has ${baselineSubjects.join(', ') || 'no trials'}`,
    );

  return matches.map(([runSubject, baselineSubject]) => {
    const pairing = pairTrials(
      baseline.filter((trial) => subjectOf(trial) === baselineSubject),
      run.filter((trial) => subjectOf(trial) === runSubject),
    );
    const pairs = gate.split === 'all' ? pairing.pairs : pairing.pairs.filter((pair) => pair.split === gate.split);
    if (pairs.length === 0)
      throw new GateInputError(
        `${runSubject}: no paired ${words} trials with the baseline (run both with --split ${gate.split === 'all' ? 'all' : `${gate.split} or all`}, same tasks and trials; gate.split: ${gate.split})`,
      );
    const metric = compareMetric(TASK_SUCCESS, pairs);
    const drop = 0 - (metric.difference ?? 0); // not -(…): no "-0" in the JSON
    const noise = gate.max_task_success_drop === 'noise';
    const power = powerFor(metric, gate.detect_drop);
    const subject = runSubject === baselineSubject ? runSubject : `${runSubject} vs ${baselineSubject}`;
    // An infinite MDE (too few pairs to detect any drop) never fails on its own; the warning says so, and require_power makes it fail.
    const limit = noise ? (metric.mde ?? Number.POSITIVE_INFINITY) : (gate.max_task_success_drop as number);
    const withinLimit = drop <= limit + 1e-12;
    const failsPower = gate.require_power && power.underpowered;
    const limitText = Number.isFinite(limit) ? fixed(limit) : '∞ (too few pairs to detect a drop)';
    if (power.underpowered) {
      const detectable =
        power.detectable === null
          ? 'no drop at all (too few pairs)'
          : `only a drop of ${fixed(power.detectable)} or more`;
      warnings.push(
        `${subject}: underpowered — with ${power.n} paired ${words} trials the gate can detect ${detectable} (α ${ALPHA}, power ${POWER}); ` +
          `detecting a drop of ${fixed(power.target)} (gate.detect_drop) needs about ${power.pairsNeeded} pairs${gate.require_power ? '; gate.require_power fails this check' : '; set gate.require_power: true to fail such a gate'}`,
      );
    }
    return {
      threshold: `${gate.split}_task_success_drop` as const,
      subject,
      pass: withinLimit && !failsPower,
      actual: drop,
      limit: Number.isFinite(limit) ? limit : null,
      detail: `${words} task_success ${fixed(metric.a!)} → ${fixed(metric.b!)}, drop ${fixed(drop)} ${withinLimit ? '≤' : '>'} ${noise ? 'noise floor (MDE) ' : 'max '}${limitText}, n = ${metric.n} pairs${failsPower ? ' — underpowered (gate.require_power)' : ''}`,
      power,
    };
  });
}

function summaryChecks(groups: readonly SummaryGroup[], gate: GateConfig, notes: string[]): GateCheck[] {
  const checks: GateCheck[] = [];
  for (const group of groups) {
    if (group.split !== 'all' || group.kind !== 'all') continue;
    const subject = subjectOf(group);
    if (group.errored > 0)
      notes.push(
        `${subject}: ${group.errored} of ${group.trials} trials errored (provider failures, excluded from rates)`,
      );
    const unsafe = group.unsafe_side_effects.count;
    checks.push({
      threshold: 'unsafe_side_effects',
      subject,
      pass: unsafe <= gate.max_unsafe_side_effects,
      actual: unsafe,
      limit: gate.max_unsafe_side_effects,
      detail: `unsafe_side_effects ${unsafe} ${unsafe <= gate.max_unsafe_side_effects ? '≤' : '>'} max ${gate.max_unsafe_side_effects}`,
    });
    const validity = group.argument_validity.value;
    const validityPass = validity === null || validity >= gate.min_argument_validity;
    checks.push({
      threshold: 'argument_validity',
      subject,
      pass: validityPass,
      actual: validity,
      limit: gate.min_argument_validity,
      detail:
        validity === null
          ? 'argument_validity n/a (no proposals checked)'
          : `argument_validity ${fixed(validity)} ${validityPass ? '≥' : '<'} min ${fixed(gate.min_argument_validity)} (n = ${group.argument_validity.n})`,
    });
  }
  return checks;
}

/** A failed `run_errored` check for each subject whose every trial errored (provider failures, nothing scored). */
function runErroredChecks(groups: readonly SummaryGroup[], firstErrors: ReadonlyMap<string, string>): GateCheck[] {
  return groups
    .filter(
      (group) => group.split === 'all' && group.kind === 'all' && group.trials > 0 && group.errored === group.trials,
    )
    .map((group) => ({
      threshold: 'run_errored' as const,
      subject: subjectOf(group),
      pass: false,
      actual: group.errored,
      limit: null,
      detail: `the run errored: all ${group.trials} trials are provider failures, nothing was scored (${firstErrors.get(subjectOf(group)) ?? 'provider error'})`,
    }));
}

/**
 * `toolmark gate` (SPEC §7): task_success of the run against the baseline,
 * on the paired tasks of `gate.split` (held-out by default), may not drop by
 * more than the noise floor (or the configured number); the run's unsafe
 * side effects and argument validity must meet their thresholds. Each
 * threshold is checked per provider × model × surface (`matchSubjects`).
 * A drop check that could not detect a drop of `gate.detect_drop` warns,
 * and fails with `gate.require_power`.
 */
export async function evaluateGate(
  run: { runId: string; records: AsyncIterable<TrialRecord> | Iterable<TrialRecord> },
  baseline: { records: AsyncIterable<TrialRecord> | Iterable<TrialRecord> },
  gate: GateConfig,
  prices: Record<string, Price> = {},
): Promise<GateResult> {
  const aggregator = createAggregator({ runId: run.runId, prices });
  const runTrials: CompactTrial[] = [];
  // One pass over the run: summary counters and compact trials for pairing.
  const firstErrors = new Map<string, string>();
  for await (const record of run.records) {
    aggregator.add(record);
    runTrials.push(compactTrial(record));
    if (record.status === 'errored' && !firstErrors.has(subjectOf(record)))
      firstErrors.set(subjectOf(record), record.error?.message ?? 'provider error');
  }
  const { trials: baselineTrials } = await collectTrials(baseline.records, null);
  const notes: string[] = [];
  const groups = aggregator.finish().groups;
  // A subject whose every trial errored has nothing to pair: say the run errored instead of blaming the split.
  const erroredChecks = runErroredChecks(groups, firstErrors);
  const failed = new Set(erroredChecks.map((check) => check.subject));
  const scored = runTrials.filter((trial) => !failed.has(subjectOf(trial)));
  const warnings: string[] = [];
  const drops = scored.length > 0 || failed.size === 0 ? dropChecks(scored, baselineTrials, gate, warnings, notes) : [];
  const checks = [
    ...erroredChecks,
    ...drops,
    ...summaryChecks(
      groups.filter((group) => !failed.has(subjectOf(group))),
      gate,
      notes,
    ),
  ];
  return { pass: checks.every((check) => check.pass), checks, scope: gateScope(gate.split), warnings, notes };
}
