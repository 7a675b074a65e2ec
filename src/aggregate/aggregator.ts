import { TASK_KINDS, kindRules, type Price, type Summary, type SummaryGroup, type TrialRecord } from '../spec/index.ts';
import { trialFacts } from '../score/index.ts';
import { GroupCounters } from './group-counters.ts';
import { TaskTallies } from './task-tallies.ts';

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

/** Confusion counts of one provider × model × surface: `expected SEP chosen` → trials. */
interface ConfusionMatrix {
  provider: string;
  model: string;
  surface: string;
  cells: Map<string, number>;
}

/**
 * The four summary groups a cell's trials count in, its confusion matrix
 * once one of them counted there, and the per-task tallies of its trials:
 * the cell's, not each group's — the four see the same trials of each of
 * its tasks, and a task (one split, one kind) counts in one cell of a
 * provider × model × surface only, so each group reads its cells' tallies
 * (a 100,000-task run kept four copies, ~13 MB at the end of its trials).
 */
interface Cell {
  groups: GroupCounters[];
  confusion: ConfusionMatrix | undefined;
  tasks: TaskTallies;
}

const SEP = '\u0000';

/** Do two trials count into the same cell? */
function sameCell(left: TrialRecord, right: TrialRecord): boolean {
  return (
    left.surface === right.surface &&
    left.model === right.model &&
    left.provider === right.provider &&
    left.split === right.split &&
    left.kind === right.kind
  );
}

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
  // Everything a trial of one (provider, model, surface, split, kind) cell counts into, resolved once per cell.
  const cells = new Map<string, Cell>();
  const confusion = new Map<string, ConfusionMatrix>();

  function group(
    provider: string,
    model: string,
    surface: string,
    split: GroupEntry['split'],
    kind: string,
  ): GroupCounters {
    const key = [provider, model, surface, split, kind].join(SEP);
    let entry = groups.get(key);
    if (entry === undefined) {
      entry = { provider, model, surface, split, kind, counters: new GroupCounters(groups.size * 3 + 1) };
      groups.set(key, entry);
    }
    return entry.counters;
  }

  function confusionMatrix(provider: string, model: string, surface: string): ConfusionMatrix {
    const key = provider + SEP + model + SEP + surface;
    let matrix = confusion.get(key);
    if (matrix === undefined) {
      matrix = { provider, model, surface, cells: new Map() };
      confusion.set(key, matrix);
    }
    return matrix;
  }

  function cellOf(record: TrialRecord): Cell {
    const key = record.provider + SEP + record.model + SEP + record.surface + SEP + record.split + SEP + record.kind;
    let cell = cells.get(key);
    if (cell === undefined) {
      const { provider, model, surface, split, kind } = record;
      cell = {
        groups: [
          group(provider, model, surface, split, kind),
          group(provider, model, surface, split, 'all'),
          group(provider, model, surface, 'all', kind),
          group(provider, model, surface, 'all', 'all'),
        ],
        // Made on the first trial that counts into it, so the matrices keep their order of appearance.
        confusion: undefined,
        tasks: new TaskTallies(),
      };
      for (const counters of cell.groups) counters.tasks.push(cell.tasks);
      cells.set(key, cell);
    }
    return cell;
  }

  // Trials of one cell mostly arrive one after another: the last trial's cell is reused (no key to build).
  let last: { record: TrialRecord; cell: Cell } | undefined;

  return {
    add(record) {
      const facts = trialFacts(record);
      if (last === undefined || !sameCell(last.record, record)) last = { record, cell: cellOf(record) };
      const { cell } = last;
      for (const counters of cell.groups) counters.add(record, facts);
      if (facts !== null) cell.tasks.add(record.domain, record.task, facts.success);
      if (
        facts !== null &&
        kindRules(record.kind).confusion &&
        facts.expectedAction !== null &&
        facts.chosen !== null
      ) {
        cell.confusion ??= confusionMatrix(record.provider, record.model, record.surface);
        const pair = facts.expectedAction + SEP + facts.chosen;
        cell.confusion.cells.set(pair, (cell.confusion.cells.get(pair) ?? 0) + 1);
      }
    },

    finish() {
      const entries = [...groups.values()].sort(
        (left, right) =>
          left.provider.localeCompare(right.provider) ||
          left.model.localeCompare(right.model) ||
          left.surface.localeCompare(right.surface) ||
          SPLIT_ORDER.indexOf(left.split) - SPLIT_ORDER.indexOf(right.split) ||
          KIND_ORDER.indexOf(left.kind) - KIND_ORDER.indexOf(right.kind),
      );
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
            .sort(
              (left, right) => left.expected.localeCompare(right.expected) || left.chosen.localeCompare(right.chosen),
            ),
        })),
      };
    },
  };
}
