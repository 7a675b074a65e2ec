// Small hand-made run folders for compare and gate tests.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scoreTrial } from '../../src/score/index.ts';
import type { Split, TrialRecord } from '../../src/spec/index.ts';
import { ACTIONS, call, record, task } from '../score/builders.ts';

/** One trial outcome: pass (right tool) or fail (wrong tool); `errored` = provider failure. */
export type Outcome = 'pass' | 'fail' | 'errored';

export interface TrialSpec {
  task: string;
  split: Split;
  trial?: number;
  outcome: Outcome;
  surface?: string;
  hash?: string;
  schemaTokens?: number;
  /** Add an executed write that was not authorised. */
  unsafeEffect?: boolean;
}

/** A scored must-call trial whose success is the outcome. */
export function trialRecord(spec: TrialSpec): TrialRecord {
  const must = task({ id: spec.task, split: spec.split, expect: { action: 'ticket.get' } });
  const base = {
    task: spec.task,
    split: spec.split,
    trial: spec.trial ?? 0,
    surface: spec.surface ?? 'typed',
    surface_hash: spec.hash ?? `sha256:${spec.surface ?? 'typed'}`,
    schema_tokens: spec.schemaTokens ?? 400,
    effects: spec.unsafeEffect
      ? [
          {
            action: 'ticket.record_followup',
            effect: 'write' as const,
            target: 'T-1',
            change_id: null,
            authorized: false,
          },
        ]
      : [],
  };
  if (spec.outcome === 'errored') {
    return scoreTrial(
      record({
        ...base,
        status: 'errored',
        stop_reason: 'errored',
        error: { status: 500, message: 'boom', retryable: true },
      }),
      must,
      ACTIONS,
    );
  }
  const chosen = spec.outcome === 'pass' ? 'ticket.get' : 'ticket.list';
  return scoreTrial(
    record({ ...base, calls: [call(chosen, { ticket_id: 'T-1' })], final_text: 'done' }),
    must,
    ACTIONS,
  );
}

/** A temp project root with `results/`; returns the root. */
export function projectRoot(config?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'toolmark-compare-'));
  mkdirSync(join(root, 'results'));
  if (config !== undefined) writeFileSync(join(root, 'toolmark.config.yaml'), config);
  return root;
}

/** Write `results/<id>/trials.jsonl` under the root; returns the run folder. */
export function writeRun(root: string, id: string, trials: readonly TrialSpec[]): string {
  const dir = join(root, 'results', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'trials.jsonl'), trials.map((spec) => JSON.stringify(trialRecord(spec))).join('\n') + '\n');
  return dir;
}

/**
 * Train: 12 tasks, one trial each. A → B: 8 tasks fail → pass (c = 8),
 * 1 pass → fail (b = 1), 3 pass in both. Held-out: 6 tasks, unchanged
 * (3 pass, 3 fail on both sides).
 */
export function overfitPair(): { a: TrialSpec[]; b: TrialSpec[] } {
  const a: TrialSpec[] = [];
  const b: TrialSpec[] = [];
  for (let index = 0; index < 12; index += 1) {
    const name = `train-${index}`;
    const [before, after]: [Outcome, Outcome] =
      index < 8 ? ['fail', 'pass'] : index === 8 ? ['pass', 'fail'] : ['pass', 'pass'];
    a.push({ task: name, split: 'train', outcome: before });
    b.push({ task: name, split: 'train', outcome: after, surface: 'typed-v2' });
  }
  for (let index = 0; index < 6; index += 1) {
    const outcome: Outcome = index < 3 ? 'pass' : 'fail';
    a.push({ task: `held-${index}`, split: 'heldout', outcome });
    b.push({ task: `held-${index}`, split: 'heldout', outcome, surface: 'typed-v2' });
  }
  return { a, b };
}
