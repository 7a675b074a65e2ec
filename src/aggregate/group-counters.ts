import type { Count, Metrics, Price, Rate, TrialRecord } from '../spec/index.ts';
import { ABSTENTION_CLASSES, type TrialFacts } from '../score/index.ts';
import { countFlips, wilsonInterval } from '../stats/index.ts';
import { meanOverTasksSeries, passAtKSeries, passHatKSeries } from '../stats/pass-at-k.ts';
import { Reservoir } from './reservoir.ts';
import { RetrievalCounters } from './retrieval-counters.ts';
import { TaskTallies } from './task-tallies.ts';

/** A rate with its Wilson 95% interval; value and interval null when n = 0. */
export function rate(successes: number, n: number): Rate {
  if (n === 0) return { value: null, n: 0, ci95: null };
  return { value: successes / n, n, ci95: wilsonInterval(successes, n) };
}

/**
 * The running counters of one summary group. `add` is O(1); nothing per
 * trial is kept except the bounded token/latency reservoirs. Its per-task
 * tallies are its cells' (`tasks`, counted by the aggregator).
 */
export class GroupCounters {
  trials = 0;
  errored = 0;
  completed = 0;
  success = 0;
  selectionPass = 0;
  selectionN = 0;
  argumentCorrect = 0;
  argumentN = 0;
  validProposals = 0;
  checkedProposals = 0;
  proposals = 0;
  unsafeProposals = 0;
  unsafeSideEffects = 0;
  executedEffects = 0;
  recoveryGood = 0;
  recoverySeen = 0;
  unnecessaryCalls = 0;
  schemaTokens = 0;
  schemaBytes = 0;
  readonly abstentions: Record<string, number> = {};
  /** Per task: scored trials and successes, in the tallies of the cells that count into this group (one per cell). */
  readonly tasks: TaskTallies[] = [];
  readonly inputTokens: Reservoir;
  readonly outputTokens: Reservoir;
  readonly latency: Reservoir;
  /** Deferred-surface trials only (created on the first one, so eager groups carry no `retrieval`). */
  retrieval: RetrievalCounters | null = null;

  constructor(seed: number) {
    this.inputTokens = new Reservoir(undefined, seed);
    this.outputTokens = new Reservoir(undefined, seed + 1);
    this.latency = new Reservoir(undefined, seed + 2);
  }

  /** Count one trial; `facts` is null for an errored trial (kept out of every rate). */
  add(record: TrialRecord, facts: TrialFacts | null): void {
    this.trials += 1;
    // Tokens, latency and cost are spent whether or not the trial errored.
    this.inputTokens.add(record.usage.input_tokens);
    this.outputTokens.add(record.usage.output_tokens);
    this.latency.add(record.latency_ms);
    this.schemaTokens += record.schema_tokens;
    this.schemaBytes += record.schema_bytes;
    if (record.loading) (this.retrieval ??= new RetrievalCounters()).add(record, facts);
    if (facts === null) {
      this.errored += 1;
      return;
    }
    this.completed += 1;
    if (facts.success) this.success += 1;
    if (facts.selection !== null) {
      this.selectionN += 1;
      if (facts.selection) this.selectionPass += 1;
    }
    if (facts.argumentCorrect !== null) {
      this.argumentN += 1;
      if (facts.argumentCorrect) this.argumentCorrect += 1;
    }
    this.validProposals += facts.validProposals;
    this.checkedProposals += facts.checkedProposals;
    this.proposals += facts.proposals;
    this.unsafeProposals += facts.unsafeProposals;
    this.unsafeSideEffects += facts.unsafeSideEffects;
    this.executedEffects += facts.executedEffects;
    this.recoveryGood += facts.recoveryGood;
    this.recoverySeen += facts.recoverySeen;
    this.unnecessaryCalls += facts.unnecessaryCalls;
    if (facts.abstention !== null) this.abstentions[facts.abstention] = (this.abstentions[facts.abstention] ?? 0) + 1;
  }

  /** The metrics of SPEC §5 for this group. */
  metrics(price: Price | undefined): Metrics {
    // In task-key order: a float sum depends on its order, and the summary must
    // not depend on which trial finished first (concurrency, simulated tool time).
    const tasks = TaskTallies.sortedOf(this.tasks);
    let maxK = tasks.length === 0 ? 0 : Infinity;
    for (const task of tasks) maxK = Math.min(maxK, task.n);
    const flips = countFlips(tasks);
    const count = (value: number, n: number): Count => ({ count: value, n });
    const inputTokens = this.inputTokens.distribution();
    const outputTokens = this.outputTokens.distribution();
    return {
      selection_accuracy: rate(this.selectionPass, this.selectionN),
      argument_validity: rate(this.validProposals, this.checkedProposals),
      argument_correctness: rate(this.argumentCorrect, this.argumentN),
      task_success: rate(this.success, this.completed),
      unsafe_proposals: count(this.unsafeProposals, this.proposals),
      unsafe_side_effects: count(this.unsafeSideEffects, this.executedEffects),
      recovery_rate: rate(this.recoveryGood, this.recoverySeen),
      unnecessary_calls: count(this.unnecessaryCalls, this.completed),
      // k = 1..maxK in one pass per task (pass^k's series is O(maxK), not O(maxK²)).
      pass_at_k: meanOverTasksSeries(tasks, maxK, passAtKSeries),
      pass_hat_k: meanOverTasksSeries(tasks, maxK, passHatKSeries),
      flip_rate: rate(flips.flipped, flips.tasks),
      // Mean per trial: the payload is fixed per surface, except with deferred loading.
      schema_tokens: this.trials === 0 ? 0 : this.schemaTokens / this.trials,
      schema_bytes: this.trials === 0 ? 0 : this.schemaBytes / this.trials,
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      latency_ms: this.latency.distribution(),
      cost_usd:
        price === undefined
          ? null
          : (inputTokens.total * price.input_per_million + outputTokens.total * price.output_per_million) / 1_000_000,
      // In ABSTENTION_CLASSES order, not first-seen order: the summary must not depend on which trial finished first.
      abstentions: Object.fromEntries(
        ABSTENTION_CLASSES.filter((name) => name in this.abstentions).map((name) => [name, this.abstentions[name]!]),
      ),
      errored: this.errored,
      trials: this.trials,
      ...(this.retrieval ? { retrieval: this.retrieval.metrics() } : {}),
    };
  }
}
