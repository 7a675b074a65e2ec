import { quantile } from '../stats/index.ts';
import type { Manifest, Summary, TrialRecord } from '../spec/index.ts';

/**
 * What a live run's user must see beside the scores (issue 21): how the
 * model's turns ended, how many turns made no call, what the provider
 * failures were, what the run cost and how long it took, and whether the
 * run is complete. Collected in the reports' single pass over the trials.
 */
export interface RunFacts {
  /** finish_reason → turns (every turn of every trial). */
  finishReasons: Record<string, number>;
  turns: number;
  turnsWithoutCall: number;
  /** Turns that carry warnings (retries, cut at the token limit, substitutions). */
  turnsWithWarnings: number;
  /** Trials scored on the turns received after the server refused a later turn (stop_reason rejected). */
  rejected: number;
  /** Errored trials by message (attempt counts aside), most frequent first after `finish`. */
  errors: { message: string; count: number }[];
  /** Surfaces (per provider/model) whose every trial errored. */
  allErrored: string[];
  /** Per provider/model: trials, tokens, latency quantiles, cost. */
  usage: {
    model: string;
    trials: number;
    inputTokens: number;
    outputTokens: number;
    latencyP50: number | null;
    latencyP95: number | null;
    costUsd: number | null;
  }[];
  /** Trials in the folder against the manifest's plan; `incomplete` when fewer, or the run never finished. */
  progress: {
    trials: number;
    planned: number;
    incomplete: boolean;
    /** The unfinished shards of a merge made with `--allow-partial` (manifest.partial); empty otherwise. */
    partialShards: NonNullable<Manifest['partial']>;
  };
}

export interface RunFactsCollector {
  add(record: TrialRecord): void;
  finish(manifest: Manifest, summary: Summary): RunFacts;
}

const modelOf = (record: Pick<TrialRecord, 'provider' | 'model'>) => `${record.provider}/${record.model}`;
const withoutAttempts = (message: string) => message.replace(/ \(after \d+ attempts\)/, '');

/** A streaming reducer of RunFacts (fed by the report collector, one record at a time). */
export function createRunFactsCollector(): RunFactsCollector {
  const finishReasons = new Map<string, number>();
  const errors = new Map<string, number>();
  const perSurface = new Map<string, { trials: number; errored: number }>();
  const perModel = new Map<
    string,
    { trials: number; inputTokens: number; outputTokens: number; latencies: number[] }
  >();
  let last: {
    provider: string;
    modelId: string;
    surfaceId: string;
    surface: { trials: number; errored: number };
    model: { trials: number; inputTokens: number; outputTokens: number; latencies: number[] };
  } | null = null;
  let turns = 0;
  let turnsWithoutCall = 0;
  let turnsWithWarnings = 0;
  let rejected = 0;
  let trials = 0;
  return {
    add(record) {
      trials += 1;
      for (const turn of record.turns) {
        turns += 1;
        finishReasons.set(turn.finish_reason, (finishReasons.get(turn.finish_reason) ?? 0) + 1);
        if (turn.tool_calls.length === 0) turnsWithoutCall += 1;
        if (turn.warnings.length > 0) turnsWithWarnings += 1;
      }
      if (record.stop_reason === 'rejected') rejected += 1;
      // A run's trials mostly share provider, model and surface with the previous one: no keys to build then.
      if (
        last === null ||
        last.surfaceId !== record.surface ||
        last.modelId !== record.model ||
        last.provider !== record.provider
      ) {
        const surfaceKey = `${modelOf(record)} ${record.surface}`;
        const surface = perSurface.get(surfaceKey) ?? { trials: 0, errored: 0 };
        perSurface.set(surfaceKey, surface);
        const model = perModel.get(modelOf(record)) ?? {
          trials: 0,
          inputTokens: 0,
          outputTokens: 0,
          latencies: [],
        };
        perModel.set(modelOf(record), model);
        last = { provider: record.provider, modelId: record.model, surfaceId: record.surface, surface, model };
      }
      const { surface, model } = last;
      surface.trials += 1;
      if (record.status === 'errored') {
        surface.errored += 1;
        const message = withoutAttempts(record.error?.message ?? 'provider error');
        errors.set(message, (errors.get(message) ?? 0) + 1);
      }
      model.trials += 1;
      model.inputTokens += record.usage.input_tokens;
      model.outputTokens += record.usage.output_tokens;
      model.latencies.push(record.latency_ms);
    },
    finish(manifest, summary) {
      const cost = new Map<string, number | null>();
      for (const group of summary.groups) {
        if (group.split !== 'all' || group.kind !== 'all') continue;
        const key = `${group.provider}/${group.model}`;
        const before = cost.has(key) ? cost.get(key)! : 0;
        cost.set(key, before === null || group.cost_usd === null ? null : before + group.cost_usd);
      }
      const usage = [...perModel.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([model, entry]) => {
          const sorted = Float64Array.from(entry.latencies).sort();
          return {
            model,
            trials: entry.trials,
            inputTokens: entry.inputTokens,
            outputTokens: entry.outputTokens,
            latencyP50: sorted.length ? quantile(sorted, 0.5) : null,
            latencyP95: sorted.length ? quantile(sorted, 0.95) : null,
            costUsd: cost.get(model) ?? null,
          };
        });
      return {
        finishReasons: Object.fromEntries(
          [...finishReasons.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
        ),
        turns,
        turnsWithoutCall,
        turnsWithWarnings,
        rejected,
        errors: [...errors.entries()]
          .map(([message, count]) => ({ message, count }))
          .sort((a, b) => b.count - a.count || a.message.localeCompare(b.message)),
        allErrored: [...perSurface.entries()]
          .filter(([, entry]) => entry.errored === entry.trials)
          .map(([key]) => key)
          .sort(),
        usage,
        progress: {
          trials,
          planned: manifest.planned,
          incomplete: trials < manifest.planned || manifest.finished_at === null || (manifest.partial?.length ?? 0) > 0,
          partialShards: manifest.partial ?? [],
        },
      };
    },
  };
}

const count = (value: number) => value.toLocaleString('en-US');
const milliseconds = (value: number | null) => (value === null ? '–' : `${count(Math.round(value))} ms`);

/** `1,234 of 5,220 planned — incomplete` when the run is not all there; null when it is. */
export function incompleteNote(facts: RunFacts): string | null {
  if (!facts.progress.incomplete) return null;
  const shards = facts.progress.partialShards;
  if (shards.length > 0) {
    const named = shards
      .map((shard) => `${shard.run_id} (${count(shard.trials)} of ${count(shard.planned)})`)
      .join(', ');
    return `PARTIAL merge: ${count(facts.progress.trials)} of ${count(facts.progress.planned)} planned trials; unfinished shard${shards.length === 1 ? '' : 's'} ${named} merged with --allow-partial`;
  }
  return `${count(facts.progress.trials)} of ${count(facts.progress.planned)} planned trials — incomplete (interrupted or stopped early; \`toolmark run --resume\` continues an interrupted run)`;
}

/** One line per model: trials, tokens, latency p50/p95, cost (or why there is none). */
export function usageLines(facts: RunFacts): string[] {
  return facts.usage.map(
    (entry) =>
      `${entry.model}: ${count(entry.trials)} trials · tokens ${count(entry.inputTokens)} in / ${count(entry.outputTokens)} out · latency p50 ${milliseconds(entry.latencyP50)}, p95 ${milliseconds(entry.latencyP95)} · cost ${entry.costUsd === null ? 'n/a (no price for this model in prices:)' : `$${entry.costUsd.toFixed(4)}`}`,
  );
}

/** How the turns ended: finish reasons, turns with no tool call, turns with warnings. */
export function turnLine(facts: RunFacts): string {
  const reasons =
    Object.entries(facts.finishReasons)
      .map(([reason, turns]) => `${reason} ${count(turns)}`)
      .join(', ') || 'none';
  const cut = facts.finishReasons['length'] ?? 0;
  const cutNote = cut > 0 ? ` — ${count(cut)} cut at the token limit` : '';
  return `${count(facts.turns)} model turns · finish reasons: ${reasons}${cutNote} · turns with no tool call: ${count(facts.turnsWithoutCall)} · turns with warnings: ${count(facts.turnsWithWarnings)}`;
}

/** Errors summary lines: each distinct provider failure with its count, and surfaces that errored whole. */
export function errorLines(facts: RunFacts, limit = 5): string[] {
  const lines = facts.allErrored.map((key) => `every trial of ${key} errored — nothing on it was scored`);
  lines.push(...facts.errors.slice(0, limit).map((entry) => `${count(entry.count)} × ${entry.message}`));
  if (facts.errors.length > limit)
    lines.push(`… and ${facts.errors.length - limit} other messages (trials.jsonl has each)`);
  if (facts.rejected > 0)
    lines.push(
      `${count(facts.rejected)} trials scored on the turns received: the server refused a later turn of the model's conversation (stop_reason rejected)`,
    );
  return lines;
}
