import {
  changedTools,
  type CompareReview,
  type Comparison,
  type ConfusionDelta,
  type CostRow,
  type FlippedReview,
  type Price,
  type ResolvedSurface,
  type SurfaceDiff,
  type Task,
  type TranscriptSide,
  type TrialRecord,
} from '../spec/index.ts';
import { trialFacts, type TrialFacts } from '../score/index.ts';
import { quantile } from '../stats/index.ts';
import { priceFor } from './aggregator.ts';
import { compareSides, type CompareInput, type CompareOptions } from './compare.ts';
import { decide } from './compare-decision.ts';
import { diffSurfaces, unavailableDiff, type PayloadCounter } from './surface-diff.ts';

/**
 * The revision review behind compare.html and the PR-comment report.md
 * (docs/compare-report.md): the comparison of compare.ts, a decision, the
 * comparison per provider, the surface diff, the flipped tasks with both
 * transcripts, the confusion delta and the cost and latency deltas.
 *
 * Each side is read twice: once keeping every trial without its transcript
 * (enough for every figure), and once more for the transcripts of the
 * flipped tasks' discordant pairs only, so memory stays near the size of
 * the verdicts, not of the transcripts.
 */

/** One side: a CompareInput whose trials can be read more than once. */
export interface ReviewSide extends Omit<CompareInput, 'records'> {
  records(): AsyncIterable<TrialRecord> | Iterable<TrialRecord>;
}

/** What the project on disk adds: surface payloads for the diff, task messages for transcripts. */
export interface ReviewProject {
  /** Resolved surfaces of the project (null when it could not be loaded; `notes` say why). */
  surfaces: readonly ResolvedSurface[] | null;
  tasks: readonly Task[] | null;
  prices: Record<string, Price>;
  /** Bytes and o200k tokens of a tool definition or payload (src/cost's schemaCost). */
  cost: PayloadCounter;
  notes?: string[];
}

export interface ReviewOptions extends CompareOptions {
  /** Flipped tasks carried with transcripts (default 40); the rest are counted. */
  maxFlipped?: number;
  /** Discordant pairs shown per flipped task (default 2). */
  pairsPerTask?: number;
}

/** Kinds whose first call feeds the confusion matrix (as in the run summary). */
const CONFUSION_KINDS: ReadonlySet<string> = new Set(['must-call', 'similar-tool']);
const NO_CALL = '(no call)';

type Slim = TrialRecord;

/** A trial without its transcript: verdicts, usage, latency and identity are all the figures need. */
function slim(record: TrialRecord): Slim {
  return { ...record, requests: [], turns: [], calls: [], effects: [], final_state: {}, final_text: null };
}

async function readSlim(side: ReviewSide): Promise<Slim[]> {
  const kept: Slim[] = [];
  for await (const record of side.records())
    if (side.surface === null || record.surface === side.surface) kept.push(slim(record));
  return kept;
}

const providerOf = (record: Pick<TrialRecord, 'provider' | 'model'>) => `${record.provider}:${record.model}`;

/** Pairs the way compare.ts did (its pairing key, even/odd trials for one surface against itself). */
interface Paired {
  key: string;
  taskKey: string;
  a: Slim;
  b: Slim;
  factsA: TrialFacts;
  factsB: TrialFacts;
}

function pairUp(comparison: Comparison, sideA: readonly Slim[], sideB: readonly Slim[]): Paired[] {
  const fields = comparison.pairing.key.filter((field) => field !== 'trial') as (keyof TrialRecord)[];
  const split = comparison.pairing.split_trials;
  const taskKey = (record: Slim) => fields.map((field) => String(record[field])).join('/');
  const index = (record: Slim) => (split ? Math.floor(record.trial / 2) : record.trial);
  const byKey = new Map<string, Slim>();
  for (const record of sideA)
    if (!split || record.trial % 2 === 0) byKey.set(`${taskKey(record)}#${index(record)}`, record);
  const pairs: Paired[] = [];
  for (const b of sideB) {
    if (split && b.trial % 2 === 0) continue;
    const key = `${taskKey(b)}#${index(b)}`;
    const a = byKey.get(key);
    const factsA = a ? trialFacts(a) : null;
    const factsB = trialFacts(b);
    if (a && factsA && factsB) pairs.push({ key, taskKey: taskKey(b), a, b, factsA, factsB });
  }
  return pairs;
}

function surfaceDiffs(
  sideA: readonly Slim[],
  sideB: readonly Slim[],
  surfaces: readonly ResolvedSurface[] | null,
  cost: PayloadCounter,
): SurfaceDiff[] {
  const seen = (records: readonly Slim[]) => {
    const byDomain = new Map<string, Map<string, string>>();
    for (const record of records) {
      const ids = byDomain.get(record.domain) ?? new Map<string, string>();
      ids.set(record.surface, record.surface_hash);
      byDomain.set(record.domain, ids);
    }
    return byDomain;
  };
  const inA = seen(sideA);
  const inB = seen(sideB);
  const diffs: SurfaceDiff[] = [];
  for (const domain of [...new Set([...inA.keys(), ...inB.keys()])].sort()) {
    const a = inA.get(domain) ?? new Map<string, string>();
    const b = inB.get(domain) ?? new Map<string, string>();
    // One surface a side: that pair; several (two whole runs): the same ids paired.
    const pairs: [string, string][] =
      a.size === 1 && b.size === 1
        ? [[[...a.keys()][0]!, [...b.keys()][0]!]]
        : [...a.keys()]
            .filter((id) => b.has(id))
            .sort()
            .map((id) => [id, id]);
    for (const [idA, idB] of pairs) {
      const refA = { id: idA, hash: a.get(idA)! };
      const refB = { id: idB, hash: b.get(idB)! };
      if (surfaces === null) {
        diffs.push(
          unavailableDiff(domain, refA, refB, 'the project could not be loaded, so the surface files are not known'),
        );
        continue;
      }
      const find = (ref: { id: string; hash: string }) =>
        surfaces.find((surface) => surface.domain === domain && surface.id === ref.id);
      const fileA = find(refA);
      const fileB = find(refB);
      const stale = [
        [refA, fileA],
        [refB, fileB],
      ]
        .filter(([ref, file]) => !file || (file as ResolvedSurface).hash !== (ref as { hash: string }).hash)
        .map(
          ([ref, file]) =>
            `${(ref as { id: string }).id} ${file ? `was edited since the run (run ${(ref as { hash: string }).hash.slice(0, 15)}…, file ${(file as ResolvedSurface).hash.slice(0, 15)}…)` : 'is not in the project'}`,
        );
      if (stale.length > 0 || !fileA || !fileB)
        diffs.push(
          unavailableDiff(domain, refA, refB, `${stale.join('; ')}: the diff would not show what the model saw`),
        );
      else diffs.push(diffSurfaces(fileA, fileB, cost));
    }
  }
  return diffs;
}

function transcript(record: TrialRecord): TranscriptSide {
  const cut = (text: string, limit = 1_500) =>
    text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
  return {
    trial: record.trial,
    pass: record.success === true,
    final_text: record.final_text === null ? null : cut(record.final_text),
    stop_reason: record.stop_reason,
    turns: record.turns.map((turn) => ({
      text: turn.text === null ? null : cut(turn.text),
      tool_calls: turn.tool_calls.map((call) => ({ name: call.name, arguments: cut(call.arguments, 600) })),
    })),
    calls: record.calls.map((call) => ({
      turn: call.turn,
      name: call.proposal.name,
      arguments: cut(call.proposal.arguments, 600),
      routed: call.routing.kind === 'resolved' ? call.routing.action : call.routing.kind,
      ok: call.outcome.ok,
      result: call.outcome.ok
        ? cut(JSON.stringify(call.outcome.output) ?? '', 400)
        : `${call.outcome.error.code}: ${cut(call.outcome.error.message, 300)}`,
      schema_valid: call.schema_valid,
    })),
    failing: record.verdicts.filter((verdict) => !verdict.pass).map((verdict) => verdict.grader),
  };
}

/** Actions a task names: expected, accepted, in sequence, distractors. */
function taskActions(task: Task | undefined): string[] {
  if (!task) return [];
  const expect = task.expect;
  return [
    ...(expect.action ? [expect.action] : []),
    ...(expect.any_of ?? []),
    ...(expect.distractors ?? []),
    ...(expect.sequence ?? []).map((step) => (typeof step === 'string' ? step : step.action)),
  ];
}

async function readTranscripts(
  side: ReviewSide,
  wanted: Set<string>,
): Promise<Map<string, TranscriptSide & { actions: string[] }>> {
  const found = new Map<string, TranscriptSide & { actions: string[] }>();
  if (wanted.size === 0) return found;
  for await (const record of side.records()) {
    const id = recordId(record);
    if (!wanted.has(id)) continue;
    const actions = record.calls.flatMap((call) => (call.routing.kind === 'resolved' ? [call.routing.action] : []));
    found.set(id, { ...transcript(record), actions });
  }
  return found;
}

const recordId = (record: Pick<TrialRecord, 'provider' | 'model' | 'domain' | 'surface' | 'task' | 'trial'>) =>
  [record.provider, record.model, record.domain, record.surface, record.task, record.trial].join('\u0000');

function flippedTasks(comparison: Comparison, split: CompareOptions['split']) {
  const splits = split === 'all' ? ['all'] : ['train', 'heldout'];
  return comparison.sections
    .filter((section) => section.kind === 'all' && splits.includes(section.split))
    .flatMap((section) => [
      ...section.flipped.worse.map((task) => ({ ...task, split: section.split, direction: 'worse' as const })),
      ...section.flipped.better.map((task) => ({ ...task, split: section.split, direction: 'better' as const })),
    ]);
}

function confusionDelta(pairs: readonly Paired[]): ConfusionDelta[] {
  const byExpected = new Map<string, { counts: Map<string, { a: number; b: number }>; moved: Map<string, number> }>();
  for (const pair of pairs) {
    if (!CONFUSION_KINDS.has(pair.a.kind) || pair.factsA.expectedAction === null) continue;
    const expected = pair.factsA.expectedAction;
    const entry = byExpected.get(expected) ?? { counts: new Map(), moved: new Map() };
    const chosenA = pair.factsA.chosen ?? NO_CALL;
    const chosenB = pair.factsB.chosen ?? NO_CALL;
    for (const [chosen, side] of [
      [chosenA, 'a'],
      [chosenB, 'b'],
    ] as const) {
      const count = entry.counts.get(chosen) ?? { a: 0, b: 0 };
      count[side] += 1;
      entry.counts.set(chosen, count);
    }
    if (chosenA !== chosenB)
      entry.moved.set(`${chosenA}\u0000${chosenB}`, (entry.moved.get(`${chosenA}\u0000${chosenB}`) ?? 0) + 1);
    byExpected.set(expected, entry);
  }
  return [...byExpected.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([expected, entry]) => ({
      expected,
      rows: [...entry.counts.entries()]
        .map(([chosen, count]) => ({ chosen, ...count }))
        .sort(
          (left, right) =>
            Number(right.chosen === expected) - Number(left.chosen === expected) ||
            right.a + right.b - (left.a + left.b) ||
            left.chosen.localeCompare(right.chosen),
        ),
      moved: [...entry.moved.entries()]
        .map(([key, count]) => {
          const [from, to] = key.split('\u0000') as [string, string];
          return { from, to, count };
        })
        .sort(
          (left, right) =>
            right.count - left.count || left.from.localeCompare(right.from) || left.to.localeCompare(right.to),
        ),
    }));
}

function costRow(provider: string, pairs: readonly Paired[], prices: Record<string, Price>): CostRow {
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
  const both = <T>(pick: (record: Slim) => number, reduce: (values: number[]) => T) => ({
    a: reduce(pairs.map((pair) => pick(pair.a))),
    b: reduce(pairs.map((pair) => pick(pair.b))),
  });
  const at = (q: number) => (values: number[]) => {
    const sorted = [...values].sort((left, right) => left - right);
    return sorted.length === 0 ? 0 : quantile(sorted, q);
  };
  const priced = pairs.every(
    (pair) => priceFor(prices, pair.a.provider, pair.a.model) && priceFor(prices, pair.b.provider, pair.b.model),
  );
  const cost = (record: Slim) => {
    const price = priceFor(prices, record.provider, record.model)!;
    return (
      (record.usage.input_tokens * price.input_per_million + record.usage.output_tokens * price.output_per_million) /
      1_000_000
    );
  };
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    provider,
    pairs: pairs.length,
    input_tokens: both((record) => record.usage.input_tokens, mean),
    output_tokens: both((record) => record.usage.output_tokens, mean),
    latency_p50: both((record) => record.latency_ms, at(0.5)),
    latency_p95: both((record) => record.latency_ms, at(0.95)),
    schema_tokens: both((record) => record.schema_tokens, mean),
    schema_bytes: both((record) => record.schema_bytes, mean),
    cost_usd: priced && pairs.length > 0 ? both(cost, sum) : null,
  };
}

/** Build the review of B against A (see the module comment). */
export async function buildCompareReview(
  a: ReviewSide,
  b: ReviewSide,
  project: ReviewProject,
  options: ReviewOptions = {},
): Promise<CompareReview> {
  const sameSource = a.runDir === b.runDir && a.surface === b.surface;
  const sideA = await readSlim(a);
  const sideB = sameSource ? sideA : await readSlim(b);
  const input = (side: ReviewSide, records: readonly Slim[]): CompareInput => ({ ...side, records });
  const comparison = await compareSides(input(a, sideA), input(b, sideB), options);
  const pairs = pairUp(comparison, sideA, sideB);

  // Never only pooled: with several providers on a side, each gets its own comparison.
  const byProvider: CompareReview['byProvider'] = [];
  if (comparison.pairing.key.includes('provider') || comparison.pairing.key.includes('model')) {
    for (const provider of [...new Set(pairs.map((pair) => providerOf(pair.a)))].sort()) {
      const only = (records: readonly Slim[]) => records.filter((record) => providerOf(record) === provider);
      const single = await compareSides(input(a, only(sideA)), input(b, only(sideB)), options);
      byProvider.push({ provider, comparison: single, decision: decide(single) });
    }
  }

  const diffs = surfaceDiffs(sideA, sideB, project.surfaces, project.cost);
  const tasks = new Map((project.tasks ?? []).map((task) => [`${task.domain}/${task.id}`, task]));
  const all = flippedTasks(comparison, options.split);
  const shown = all.slice(0, options.maxFlipped ?? 40);
  const perTask = options.pairsPerTask ?? 2;
  const byTaskKey = new Map<string, Paired[]>();
  for (const pair of pairs) byTaskKey.set(pair.taskKey, [...(byTaskKey.get(pair.taskKey) ?? []), pair]);
  const chosen = shown.map((task) =>
    (byTaskKey.get(task.task) ?? []).filter((pair) => pair.factsA.success !== pair.factsB.success).slice(0, perTask),
  );
  const transcriptsA = await readTranscripts(a, new Set(chosen.flat().map((pair) => recordId(pair.a))));
  const transcriptsB = await readTranscripts(
    sameSource ? a : b,
    new Set(chosen.flat().map((pair) => recordId(pair.b))),
  );

  const flipped: FlippedReview[] = shown.map((entry, index) => {
    const sample = (byTaskKey.get(entry.task) ?? [])[0];
    const first = sample?.a;
    const task = first ? tasks.get(`${first.domain}/${first.task}`) : undefined;
    const sides = chosen[index]!.map((pair) => ({
      a: transcriptsA.get(recordId(pair.a)),
      b: transcriptsB.get(recordId(pair.b)),
    })).filter(
      (pair): pair is { a: TranscriptSide & { actions: string[] }; b: TranscriptSide & { actions: string[] } } =>
        pair.a !== undefined && pair.b !== undefined,
    );
    const touched = new Set([
      ...taskActions(task),
      ...(byTaskKey.get(entry.task) ?? [])
        .flatMap((pair) => [pair.factsA.chosen, pair.factsB.chosen])
        .filter((action): action is string => action !== null),
      ...sides.flatMap((pair) => [...pair.a.actions, ...pair.b.actions]),
    ]);
    const diff = diffs.find((candidate) => candidate.domain === first?.domain);
    const changed = diff
      ? changedTools(diff)
          .filter((tool) => tool.actions.some((action) => touched.has(action)))
          .map((tool) => tool.name.b ?? tool.name.a!)
      : [];
    const strip = ({ actions: _actions, ...side }: TranscriptSide & { actions: string[] }): TranscriptSide => side;
    return {
      key: entry.task,
      domain: first?.domain ?? '',
      task: first?.task ?? entry.task,
      provider:
        comparison.pairing.key.includes('model') || comparison.pairing.key.includes('provider')
          ? first
            ? providerOf(first)
            : null
          : null,
      split: entry.split,
      kind: first?.kind ?? '',
      direction: entry.direction,
      a: entry.a,
      b: entry.b,
      changedTools: changed,
      messages: task ? task.messages.map((message) => ({ role: message.role, content: message.content })) : [],
      pairs: sides.map((pair) => ({ a: strip(pair.a), b: strip(pair.b) })),
    };
  });

  const providers = [...new Set(pairs.map((pair) => providerOf(pair.a)))].sort();
  const costs = [
    ...(providers.length > 1
      ? providers.map((provider) =>
          costRow(
            provider,
            pairs.filter((pair) => providerOf(pair.a) === provider),
            project.prices,
          ),
        )
      : []),
    costRow(providers.length > 1 ? 'all providers' : (providers[0] ?? 'all'), pairs, project.prices),
  ];
  return {
    comparison,
    decision: decide(comparison),
    byProvider,
    surfaceDiffs: diffs,
    flipped,
    flippedTotal: all.length,
    confusion: confusionDelta(pairs),
    costs,
    notes: project.notes ?? [],
  };
}
