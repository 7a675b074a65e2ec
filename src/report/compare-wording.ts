import type {
  CompareDecision,
  ComparedMetric,
  CompareReview,
  Comparison,
  PayloadCost,
  SurfaceDiff,
  ToolDiff,
} from '../spec/index.ts';
import { interval, pValue } from './compare-markdown.ts';

/**
 * The words of a revision review, shared by compare.html and the PR-comment
 * report.md: a decision worded for a reviewer, a verdict per metric, and the
 * one-line summary of a surface diff.
 */

/** Signed percentage points: `+1.3 pp`, `−0.4 pp`. */
export function pp(value: number): string {
  return `${value > 0 ? '+' : value < 0 ? '−' : '±'}${(Math.abs(value) * 100).toFixed(1)} pp`;
}

/** Signed whole number: `+12`, `−124`, `±0`. */
export function signedInteger(value: number): string {
  const rounded = Math.round(value);
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded).toLocaleString('en-US')}`;
}

function metricIn(comparison: Comparison, split: string, name: string): ComparedMetric | undefined {
  return comparison.sections
    .find((section) => section.split === split && section.kind === 'all')
    ?.metrics.find((metric) => metric.metric === name);
}

/** `+1.3 pp [+0.2 pp, +2.7 pp], McNemar p = 0.039`. */
export function evidence(metric: ComparedMetric | undefined): string {
  if (metric === undefined || metric.difference === null) return 'no paired trials';
  return `${interval(metric)}${metric.mcnemar ? `, McNemar p = ${pValue(metric).split(' ')[0]}` : ''}`;
}

/** Short label of a decision, for badges and table cells. */
export const DECISION_LABELS: Record<CompareDecision['outcome'], string> = {
  ship: 'Ship',
  overfit: 'Likely overfit',
  regression: 'Do not ship: regression',
  'no-change': 'No detectable change',
  'train-only': 'Train only: add held-out tasks',
  'heldout-only': 'Held-out only: check train',
  aa: 'A/A: noise floor',
  'no-data': 'No data',
};

/** CSS/emoji tone of a decision. */
export function decisionTone(outcome: CompareDecision['outcome']): 'good' | 'bad' | 'warn' | 'neutral' {
  if (outcome === 'ship') return 'good';
  if (outcome === 'regression') return 'bad';
  if (outcome === 'overfit' || outcome === 'train-only' || outcome === 'heldout-only') return 'warn';
  return 'neutral';
}

const METRIC_WORDS: Record<string, string> = {
  task_success: 'task success',
  selection_accuracy: 'selection',
  argument_correctness: 'argument correctness',
  unsafe_proposals: 'unsafe proposals',
};

/** The decision as a sentence a reviewer can act on. */
export function decisionSentence(decision: CompareDecision, comparison: Comparison): string {
  const train = metricIn(comparison, 'train', 'task_success');
  const heldout = metricIn(comparison, 'heldout', 'task_success');
  const both = `train ${evidence(train)}; held-out ${evidence(heldout)}`;
  switch (decision.outcome) {
    case 'ship':
      return `Ship: task success improves on train and on held-out tasks the descriptions were not tuned on (${both}), and no metric got detectably worse.`;
    case 'overfit':
      return `Likely overfit: train task success improved (${evidence(train)}) but held-out did not (${evidence(heldout)}). Do not ship on this evidence; check the flipped held-out tasks.`;
    case 'regression':
      return `Do not ship: ${decision.worse
        .map((entry) => {
          const [split, name] = entry.split('/') as [string, string];
          return `${METRIC_WORDS[name] ?? name} is worse on ${split === 'heldout' ? 'held-out' : split} (${evidence(metricIn(comparison, split, name))})`;
        })
        .join('; ')}.`;
    case 'train-only':
      return `Train task success improved (${evidence(train)}), but there are no paired held-out trials to confirm it: add held-out tasks before shipping.`;
    case 'heldout-only':
      return `Held-out task success improved (${evidence(heldout)}) while train did not (${evidence(train)}): an unusual pattern; read the flipped tasks before shipping.`;
    case 'aa':
      return 'A/A comparison: both sides saw the same surface, provider and model, so every difference is noise; the MDE column is the smallest change a revision must beat.';
    case 'no-data':
      return 'No paired scored trials: nothing to decide.';
    case 'no-change': {
      const need = decision.needed;
      const more = need
        ? ` — would need about ${need.moreTasks.toLocaleString('en-US')} more tasks (at ${need.trialsPerTask} trials each) to see the ${pp(need.difference)} observed on ${need.split === 'heldout' ? 'held-out' : 'train'}`
        : '';
      return `No detectable change in task success (${both})${more}. Ship it only for other reasons (cost, clarity).`;
    }
  }
}

/** A metric's verdict in decision words: better, worse, or what it would take to see the change. */
export function metricVerdict(
  metric: ComparedMetric,
  moreTasks: { moreTasks: number; trialsPerTask: number } | null,
): string {
  if (metric.verdict === 'better' || metric.verdict === 'worse') return metric.verdict;
  if (metric.verdict === 'no data') return 'no data';
  if (!metric.binary) return 'no detectable change';
  if (metric.difference === 0 || moreTasks === null)
    return `no change seen${metric.mde === null ? '' : ` (detectable: ≥ ${(metric.mde * 100).toFixed(1)} pp)`}`;
  return `no detectable change — would need ~${moreTasks.moreTasks.toLocaleString('en-US')} more tasks to see ${pp(metric.difference!)}`;
}

function costText(cost: PayloadCost | null): string {
  return cost === null ? '—' : `${cost.tokens.toLocaleString('en-US')} tok / ${cost.bytes.toLocaleString('en-US')} B`;
}

/** `612 → 540 tok (−72)`. */
export function costChange(a: PayloadCost | null, b: PayloadCost | null, unit: 'tokens' | 'bytes' = 'tokens'): string {
  if (a === null && b === null) return '—';
  if (a === null || b === null) return a === null ? `${costText(b)} (new)` : `${costText(a)} (removed)`;
  return `${a[unit].toLocaleString('en-US')} → ${b[unit].toLocaleString('en-US')} (${signedInteger(b[unit] - a[unit])})`;
}

/** What happened to one tool, in a few words. */
export function toolChangeWords(tool: ToolDiff, reordered: boolean): string {
  if (tool.status === 'added') return 'added';
  if (tool.status === 'removed') return 'removed';
  const words: string[] = [];
  if (tool.renamed) words.push(`renamed from ${tool.name.a}`);
  const descriptions = tool.texts.filter((text) => text.field === 'description').length;
  const parameters = tool.texts.length - descriptions;
  if (descriptions) words.push('description');
  if (parameters) words.push(`${parameters} parameter text${parameters === 1 ? '' : 's'}`);
  if (tool.schema.length) words.push(`${tool.schema.length} schema change${tool.schema.length === 1 ? '' : 's'}`);
  if (reordered && tool.position.a !== tool.position.b)
    words.push(`moved ${(tool.position.a ?? 0) + 1} → ${(tool.position.b ?? 0) + 1}`);
  return words.length ? words.join(', ') : 'unchanged';
}

/** One line per domain: how many tools changed in which way, and the payload cost before and after. */
export function surfaceSummary(diff: SurfaceDiff): string {
  if (diff.unavailable !== null) return `surface diff unavailable: ${diff.unavailable}`;
  const count = (predicate: (tool: ToolDiff) => boolean) => diff.tools.filter(predicate).length;
  const parts = [
    [count((tool) => tool.status === 'added'), 'added'],
    [count((tool) => tool.status === 'removed'), 'removed'],
    [count((tool) => tool.renamed), 'renamed'],
    [count((tool) => tool.texts.some((text) => text.field === 'description')), 'with a new description'],
    [count((tool) => tool.texts.some((text) => text.field !== 'description')), 'with new parameter texts'],
    [count((tool) => tool.schema.length > 0), 'with schema changes'],
  ]
    .filter(([number]) => (number as number) > 0)
    .map(([number, words]) => `${number} ${words}`);
  if (diff.reordered) parts.push('order changed');
  for (const text of diff.surfaceTexts) parts.push(`${text.field} changed`);
  const what = parts.length ? parts.join(', ') : 'no change the model can see';
  return `${diff.tools.length} tools: ${what}; payload ${costChange(diff.total.a, diff.total.b)} tokens, ${costChange(diff.total.a, diff.total.b, 'bytes')} bytes`;
}

/** How much a decision holds a revision back, for comparing a provider's decision with the pooled one. */
const SEVERITY: Partial<Record<CompareDecision['outcome'], number>> = {
  ship: 0,
  'no-change': 1,
  'train-only': 2,
  'heldout-only': 2,
  overfit: 3,
  regression: 4,
};

/**
 * When some provider's decision is worse than the pooled one, a sentence
 * naming them (the pooled verdict alone would hide a provider that
 * overfits or regresses).
 */
export function providerDisagreement(review: CompareReview): string | null {
  const pooled = SEVERITY[review.decision.outcome];
  if (pooled === undefined) return null;
  const worse = review.byProvider.filter((entry) => (SEVERITY[entry.decision.outcome] ?? -1) > pooled);
  if (worse.length === 0) return null;
  return `Not for every provider: ${worse.map((entry) => `${entry.provider} — ${DECISION_LABELS[entry.decision.outcome].toLowerCase()}`).join('; ')}.`;
}
