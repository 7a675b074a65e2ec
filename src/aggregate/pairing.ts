import type { Split, TrialRecord } from '../spec/index.ts';
import { trialFacts, type TrialFacts } from '../score/index.ts';

/** What compare keeps of one trial: identity plus its facts (null when errored). */
export interface CompactTrial {
  provider: string;
  model: string;
  domain: string;
  surface: string;
  surfaceHash: string;
  split: Split;
  kind: string;
  task: string;
  trial: number;
  schemaTokens: number;
  facts: TrialFacts | null;
  /** The provider failure of an errored trial (what compare names when a side has nothing to pair). */
  errorMessage: string | null;
}

export function compactTrial(record: TrialRecord): CompactTrial {
  return {
    provider: record.provider,
    model: record.model,
    domain: record.domain,
    surface: record.surface,
    surfaceHash: record.surface_hash,
    split: record.split,
    kind: record.kind,
    task: record.task,
    trial: record.trial,
    schemaTokens: record.schema_tokens,
    facts: trialFacts(record),
    errorMessage: record.status === 'errored' ? (record.error?.message ?? 'errored') : null,
  };
}

/** Collect a side's trials, keeping only one surface when asked. */
export async function collectTrials(
  records: AsyncIterable<TrialRecord> | Iterable<TrialRecord>,
  surface: string | null,
): Promise<{ trials: CompactTrial[]; surfaces: string[] }> {
  const trials: CompactTrial[] = [];
  const surfaces = new Set<string>();
  for await (const record of records) {
    surfaces.add(record.surface);
    if (surface === null || record.surface === surface) trials.push(compactTrial(record));
  }
  return { trials, surfaces: [...surfaces].sort() };
}

/** A paired trial: both sides completed. */
export interface TrialPair {
  /** Identifies the task within the pairing (domain/task plus any varying provider/model/surface). */
  taskKey: string;
  split: Split;
  kind: string;
  a: CompactTrial;
  b: CompactTrial;
}

export interface Pairing {
  key: string[];
  pairs: TrialPair[];
  unpairedA: number;
  unpairedB: number;
  errored: number;
  splitTrials: boolean;
}

const VARYING_FIELDS = ['provider', 'model', 'surface'] as const;

/**
 * Pair trials by (domain, task, trial), plus provider, model and surface
 * whenever a side holds more than one value of that field. A field with a
 * single value on each side is the compared dimension (or constant), so it
 * is left out of the key: surface A pairs with surface B, model X with Y.
 * With `splitTrials` (one surface of one run against itself) trial 2j of the
 * run pairs with trial 2j + 1: independent trials, so an honest A/A.
 */
export function pairTrials(
  aTrials: readonly CompactTrial[],
  bTrials: readonly CompactTrial[],
  options: { splitTrials?: boolean } = {},
): Pairing {
  const splitTrials = options.splitTrials ?? false;
  let sideA = aTrials;
  let sideB = bTrials;
  if (splitTrials) {
    sideA = aTrials.filter((trial) => trial.trial % 2 === 0);
    sideB = bTrials.filter((trial) => trial.trial % 2 === 1);
  }
  const kept = VARYING_FIELDS.filter(
    (field) =>
      new Set(sideA.map((trial) => trial[field])).size > 1 || new Set(sideB.map((trial) => trial[field])).size > 1,
  );
  const taskKey = (trial: CompactTrial) => [...kept.map((field) => trial[field]), trial.domain, trial.task].join('/');
  const pairIndex = (trial: CompactTrial) => (splitTrials ? Math.floor(trial.trial / 2) : trial.trial);
  const fullKey = (trial: CompactTrial) => `${taskKey(trial)}#${pairIndex(trial)}`;

  const byKey = new Map<string, CompactTrial>();
  for (const trial of sideA) byKey.set(fullKey(trial), trial);
  const pairs: TrialPair[] = [];
  let unpairedB = 0;
  let errored = 0;
  const matched = new Set<string>();
  for (const b of sideB) {
    const key = fullKey(b);
    const a = byKey.get(key);
    if (a === undefined) {
      unpairedB += 1;
      continue;
    }
    matched.add(key);
    if (a.facts === null || b.facts === null) {
      errored += 1;
      continue;
    }
    pairs.push({ taskKey: taskKey(a), split: a.split, kind: a.kind, a, b });
  }
  return {
    key: [...kept, 'domain', 'task', 'trial'],
    pairs,
    unpairedA: byKey.size - matched.size,
    unpairedB,
    errored,
    splitTrials,
  };
}
