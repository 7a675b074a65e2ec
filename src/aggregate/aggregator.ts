import { TASK_KINDS, type Price, type Summary, type SummaryGroup, type TrialRecord } from '../spec/index.ts';
import { trialFacts } from '../score/index.ts';
import { GroupCounters } from './group-counters.ts';

/** Kinds whose trials feed the confusion matrix (SPEC §2). */
const CONFUSION_KINDS: ReadonlySet<string> = new Set(['must-call', 'similar-tool']);
const SPLIT_ORDER = ['train', 'heldout', 'all'];
const KIND_ORDER: string[] = [...TASK_KINDS, 'all'];

export interface AggregatorOptions {
  runId: string;
  /** Price per model id (or `provider:model`). */
  prices: Record<string, Price>;
  synthetic?: boolean;
}

export interface Aggregator {
  add(record: TrialRecord): void;
  finish(): Summary;
}

interface GroupEntry {
  provider: string;
  model: string;
  surface: string;
  split: SummaryGroup['split'];
  kind: string;
  counters: GroupCounters;
}

const SEP = '\u0000';

/** Look a model's price up by `provider:model`, then by model. */
export function priceFor(prices: Record<string, Price>, provider: string, model: string): Price | undefined {
  return prices[`${provider}:${model}`] ?? prices[model];
}

/**
 * Streaming aggregation (SPEC §5): trials in, summary groups out. Each trial
 * counts in four groups — (its split | all) × (its kind | all) — for its
 * provider, model and surface. Only counters, per-(group, task) tallies and
 * bounded reservoirs are kept, never the trials.
 */
export function createAggregator(options: AggregatorOptions): Aggregator {
  const groups = new Map<string, GroupEntry>();
  // The four groups of each (provider, model, surface, split, kind) cell, resolved once.
  const cells = new Map<string, GroupCounters[]>();
  const confusion = new Map<string, { provider: string; model: string; surface: string; cells: Map<string, number> }>();

  function group(provider: string, model: string, surface: string, split: GroupEntry['split'], kind: string): GroupCounters {
    const key = [provider, model, surface, split, kind].join(SEP);
    let entry = groups.get(key);
    if (entry === undefined) {
      entry = { provider, model, surface, split, kind, counters: new GroupCounters(groups.size * 3 + 1) };
      groups.set(key, entry);
    }
    return entry.counters;
  }

  function cellGroups(record: TrialRecord): GroupCounters[] {
    const key = record.provider + SEP + record.model + SEP + record.surface + SEP + record.split + SEP + record.kind;
    let list = cells.get(key);
    if (list === undefined) {
      const { provider, model, surface, split, kind } = record;
      list = [
        group(provider, model, surface, split, kind),
        group(provider, model, surface, split, 'all'),
        group(provider, model, surface, 'all', kind),
        group(provider, model, surface, 'all', 'all'),
      ];
      cells.set(key, list);
    }
    return list;
  }

  function countConfusion(record: TrialRecord, expected: string, chosen: string): void {
    const key = record.provider + SEP + record.model + SEP + record.surface;
    let matrix = confusion.get(key);
    if (matrix === undefined) {
      matrix = { provider: record.provider, model: record.model, surface: record.surface, cells: new Map() };
      confusion.set(key, matrix);
    }
    const cell = expected + SEP + chosen;
    matrix.cells.set(cell, (matrix.cells.get(cell) ?? 0) + 1);
  }

  return {
    add(record) {
      const facts = trialFacts(record);
      const taskKey = record.domain + SEP + record.task;
      for (const counters of cellGroups(record)) counters.add(record, taskKey, facts);
      if (facts !== null && CONFUSION_KINDS.has(record.kind) && facts.expectedAction !== null && facts.chosen !== null) {
        countConfusion(record, facts.expectedAction, facts.chosen);
      }
    },

    finish() {
      const entries = [...groups.values()].sort((left, right) =>
        left.provider.localeCompare(right.provider)
        || left.model.localeCompare(right.model)
        || left.surface.localeCompare(right.surface)
        || SPLIT_ORDER.indexOf(left.split) - SPLIT_ORDER.indexOf(right.split)
        || KIND_ORDER.indexOf(left.kind) - KIND_ORDER.indexOf(right.kind));
      return {
        v: 1,
        run_id: options.runId,
        synthetic: options.synthetic ?? false,
        groups: entries.map(({ counters, ...identity }) => ({
          ...identity,
          ...counters.metrics(priceFor(options.prices, identity.provider, identity.model)),
        })),
        confusion: [...confusion.values()].map((matrix) => ({
          provider: matrix.provider,
          model: matrix.model,
          surface: matrix.surface,
          cells: [...matrix.cells.entries()]
            .map(([cell, count]) => {
              const [expected, chosen] = cell.split(SEP) as [string, string];
              return { expected, chosen, count };
            })
            .sort((left, right) => left.expected.localeCompare(right.expected) || left.chosen.localeCompare(right.chosen)),
        })),
      };
    },
  };
}
