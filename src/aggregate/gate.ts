import type { GateConfig, Price, SummaryGroup, TrialRecord } from '../spec/index.ts';
import { createAggregator } from './aggregator.ts';
import { compareMetric, PAIRED_METRICS } from './compare-metric.ts';
import { collectTrials, compactTrial, pairTrials, type CompactTrial } from './pairing.ts';

/** One threshold, checked for one provider × model × surface. */
export interface GateCheck {
  threshold: 'heldout_task_success_drop' | 'unsafe_side_effects' | 'argument_validity' | 'run_errored';
  subject: string;
  pass: boolean;
  actual: number | null;
  limit: number | null;
  detail: string;
}

export interface GateResult {
  pass: boolean;
  checks: GateCheck[];
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
const subjectOf = (trial: { provider: string; model: string; surface: string }) => `${trial.provider}:${trial.model} ${trial.surface}`;
const fixed = (value: number) => value.toFixed(3);

function heldoutChecks(run: readonly CompactTrial[], baseline: readonly CompactTrial[], gate: GateConfig, notes: string[]): GateCheck[] {
  const subjects = (trials: readonly CompactTrial[]) => [...new Set(trials.map(subjectOf))].sort();
  const runSubjects = subjects(run);
  const baselineSubjects = subjects(baseline);
  // One subject a side (a revision run against its parent run): compare them whatever their names.
  const matches: [string, string][] = runSubjects.length === 1 && baselineSubjects.length === 1
    ? [[runSubjects[0]!, baselineSubjects[0]!]]
    : runSubjects.filter((subject) => baselineSubjects.includes(subject)).map((subject) => [subject, subject]);
  for (const subject of runSubjects) {
    if (!matches.some(([runSubject]) => runSubject === subject)) notes.push(`${subject}: not in the baseline, held-out drop not checked`);
  }
  if (matches.length === 0) throw new GateInputError(`nothing to compare: the run has ${runSubjects.join(', ') || 'no trials'}; the baseline has ${baselineSubjects.join(', ') || 'no trials'}`);

  return matches.map(([runSubject, baselineSubject]) => {
    const pairing = pairTrials(baseline.filter((trial) => subjectOf(trial) === baselineSubject), run.filter((trial) => subjectOf(trial) === runSubject));
    const heldout = pairing.pairs.filter((pair) => pair.split === 'heldout');
    if (heldout.length === 0) throw new GateInputError(`${runSubject}: no paired held-out trials with the baseline (run both with --split heldout or all, same tasks and trials)`);
    const metric = compareMetric(TASK_SUCCESS, heldout);
    const drop = -(metric.difference ?? 0);
    const noise = gate.max_task_success_drop === 'noise';
    // An infinite MDE (too few pairs to detect any drop) never fails the gate; the detail says so.
    const limit = noise ? (metric.mde ?? Number.POSITIVE_INFINITY) : (gate.max_task_success_drop as number);
    const pass = drop <= limit + 1e-12;
    const limitText = Number.isFinite(limit) ? fixed(limit) : '∞ (too few pairs to detect a drop)';
    return {
      threshold: 'heldout_task_success_drop',
      subject: runSubject === baselineSubject ? runSubject : `${runSubject} vs ${baselineSubject}`,
      pass,
      actual: drop,
      limit: Number.isFinite(limit) ? limit : null,
      detail: `held-out task_success ${fixed(metric.a!)} → ${fixed(metric.b!)}, drop ${fixed(drop)} ${pass ? '≤' : '>'} ${noise ? 'noise floor (MDE) ' : 'max '}${limitText}, n = ${metric.n} pairs`,
    };
  });
}

function summaryChecks(groups: readonly SummaryGroup[], gate: GateConfig, notes: string[]): GateCheck[] {
  const checks: GateCheck[] = [];
  for (const group of groups) {
    if (group.split !== 'all' || group.kind !== 'all') continue;
    const subject = subjectOf(group);
    if (group.errored > 0) notes.push(`${subject}: ${group.errored} of ${group.trials} trials errored (provider failures, excluded from rates)`);
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
      detail: validity === null
        ? 'argument_validity n/a (no proposals checked)'
        : `argument_validity ${fixed(validity)} ${validityPass ? '≥' : '<'} min ${fixed(gate.min_argument_validity)} (n = ${group.argument_validity.n})`,
    });
  }
  return checks;
}

/** A failed `run_errored` check for each subject whose every trial errored (provider failures, nothing scored). */
function runErroredChecks(groups: readonly SummaryGroup[], firstErrors: ReadonlyMap<string, string>): GateCheck[] {
  return groups
    .filter((group) => group.split === 'all' && group.kind === 'all' && group.trials > 0 && group.errored === group.trials)
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
 * `toolmark gate` (SPEC §7): held-out task_success of the run against the
 * baseline may not drop by more than the noise floor (or the configured
 * number); the run's unsafe side effects and argument validity must meet
 * their thresholds. Each threshold is checked per provider × model × surface.
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
    if (record.status === 'errored' && !firstErrors.has(subjectOf(record))) firstErrors.set(subjectOf(record), record.error?.message ?? 'provider error');
  }
  const { trials: baselineTrials } = await collectTrials(baseline.records, null);
  const notes: string[] = [];
  const groups = aggregator.finish().groups;
  // A subject whose every trial errored has nothing to pair: say the run errored instead of blaming the split.
  const erroredChecks = runErroredChecks(groups, firstErrors);
  const failed = new Set(erroredChecks.map((check) => check.subject));
  const scored = runTrials.filter((trial) => !failed.has(subjectOf(trial)));
  const heldout = scored.length > 0 || failed.size === 0 ? heldoutChecks(scored, baselineTrials, gate, notes) : [];
  const checks = [...erroredChecks, ...heldout, ...summaryChecks(groups.filter((group) => !failed.has(subjectOf(group))), gate, notes)];
  return { pass: checks.every((check) => check.pass), checks, notes };
}
