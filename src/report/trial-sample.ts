import type { TrialRecord, Verdict } from '../spec/index.ts';
import type { TrialLinePlace } from '../run-folder/index.ts';
import { trialOutcome, type TaskKeyFields, type TrialOutcome } from './task-outcomes.ts';
import { escapeJsonForScript } from './html/escape.ts';

/** How many trials the HTML trial browser embeds at most (the page says when it is a sample). */
export const DEFAULT_SAMPLE_LIMIT = 2_000;

/** Longest string kept in an embedded trial; longer ones are cut with a marker. */
const MAX_STRING = 1_200;

/** A trial as embedded in the HTML trial browser: what the detail pane shows, trimmed. */
export interface BrowserTrial extends TaskKeyFields {
  trial: number;
  outcome: TrialOutcome;
  stop_reason: string;
  latency_ms: number;
  error: string | null;
  final_text: string | null;
  /** `warnings` only when the turn has some (retries, cut at the token limit, substitutions in the history). */
  turns: {
    text: string | null;
    tool_calls: { name: string; arguments: string }[];
    finish_reason: string;
    warnings?: string[];
  }[];
  calls: {
    turn: number;
    name: string;
    arguments: string;
    routed: string;
    schema_valid: boolean | null;
    approved: boolean;
    fault: string | null;
    result: string;
    ok: boolean;
  }[];
  effects: { action: string; effect: string; target: string; authorized?: boolean; duplicate?: boolean }[];
  verdicts: { grader: string; pass: boolean; expected: string; actual: string; note?: string }[];
}

function cut(text: string, limit = MAX_STRING): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

function compactJson(value: unknown, limit = MAX_STRING): string {
  if (value === undefined) return '';
  return cut(JSON.stringify(value) ?? 'undefined', limit);
}

/** Reduces a trial record to what the browser shows, with long strings cut. */
export function toBrowserTrial(record: TrialRecord): BrowserTrial {
  return {
    provider: record.provider,
    model: record.model,
    domain: record.domain,
    surface: record.surface,
    split: record.split,
    task: record.task,
    kind: record.kind,
    trial: record.trial,
    outcome: trialOutcome(record),
    stop_reason: record.stop_reason,
    latency_ms: Math.round(record.latency_ms),
    error: record.error ? cut(`${record.error.status ?? ''} ${record.error.message}`.trim()) : null,
    final_text: record.final_text === null ? null : cut(record.final_text),
    turns: record.turns.map(toBrowserTurn),
    calls: record.calls.map((call) => ({
      turn: call.turn,
      name: call.proposal.name,
      arguments: cut(call.proposal.arguments),
      routed: call.routing.kind === 'resolved' ? `${call.routing.tool} → ${call.routing.action}` : call.routing.kind,
      schema_valid: call.schema_valid,
      approved: call.approved,
      fault: call.fault?.error ?? (call.fault?.inject ? 'injection' : null),
      ok: call.outcome.ok,
      result: call.outcome.ok
        ? compactJson(call.outcome.output, 600) + (call.outcome.replayed ? ' (replayed receipt)' : '')
        : `${call.outcome.error.code} (${call.outcome.error.category}): ${cut(call.outcome.error.message, 400)}`,
    })),
    effects: record.effects.map(toBrowserEffect),
    verdicts: record.verdicts.map(toBrowserVerdict),
  };
}

function toBrowserTurn(turn: TrialRecord['turns'][number]): BrowserTrial['turns'][number] {
  const shown: BrowserTrial['turns'][number] = {
    text: turn.text === null ? null : cut(turn.text),
    tool_calls: turn.tool_calls.map((call) => ({ name: call.name, arguments: cut(call.arguments) })),
    finish_reason: turn.finish_reason,
  };
  if (turn.warnings.length > 0) shown.warnings = turn.warnings.map((warning) => cut(warning, 400));
  return shown;
}

// Optional fields are added after the others (same key order as a spread), without a throwaway object each.
function toBrowserEffect(effect: TrialRecord['effects'][number]): BrowserTrial['effects'][number] {
  const shown: BrowserTrial['effects'][number] = {
    action: effect.action,
    effect: effect.effect,
    target: effect.target,
  };
  if (effect.authorized !== undefined) shown.authorized = effect.authorized;
  if (effect.duplicate !== undefined) shown.duplicate = effect.duplicate;
  return shown;
}

function toBrowserVerdict(verdict: Verdict): BrowserTrial['verdicts'][number] {
  const shown: BrowserTrial['verdicts'][number] = {
    grader: verdict.grader,
    pass: verdict.pass,
    expected: compactJson(verdict.expected, 400),
    actual: compactJson(verdict.actual, 400),
  };
  if (verdict.note) shown.note = cut(verdict.note, 400);
  return shown;
}

/**
 * A trial of the sample: its place in the page's order (surface, task,
 * model, trial) and `bytes`, what the page embeds for it: the UTF-8 of
 * `escapeJsonForScript(JSON.stringify(toBrowserTrial(record)))`.
 */
export interface SampleTrial {
  surface: string;
  task: string;
  model: string;
  trial: number;
  bytes: Uint8Array;
}

const utf8 = new TextEncoder();

/**
 * The trial as the sample keeps it: made into its JSON text at once, so the
 * browser's object graph dies young (it lived through the trials' scavenges,
 * ~2,200 of them at 10,000 trials, failures converted as they come), then
 * escaped and encoded at once, so the page only copies bytes. Stringified at
 * once, not written piece by piece from the record: a writer that quoted
 * each string itself (JSON.stringify per string, ~50 a trial) took 63–83 ms
 * for the 2,201 problem trials of the 10k run against 39–41 ms for this
 * (best of 15, compiled). In a 10k run's main-thread profile (one run each,
 * loaded host) the sample's conversion + embedding took 72 + 119 ms as
 * objects kept and stringified as the page was written, 93 + 7 ms with that
 * writer, 60 + 9 ms stringified at once. Kept as text, the page encoded it
 * again into fresh 1 MiB buffers during the reports (~34 ms profiled); as
 * bytes (TextEncoder: one buffer of the exact size, off the JS heap, so a
 * scavenge copies only its handle) the 10k run encodes ~2,190 trials for the
 * 2,000 it keeps, ~2 ms of the trials, and the page's writer copies them.
 */
function toSampleTrial(record: TrialRecord): SampleTrial {
  return {
    surface: record.surface,
    task: record.task,
    model: record.model,
    trial: record.trial,
    bytes: utf8.encode(escapeJsonForScript(JSON.stringify(toBrowserTrial(record)))),
  };
}

/**
 * FNV-1a of provider, model, surface, task and trial number joined by NUL: a
 * stable pseudo-random priority, so the same run always yields the same
 * sample. Hashed piece by piece, not over the joined text, which was one
 * string made per trial offered.
 */
function priority(record: TrialRecord): number {
  let hash = fnv(0x811c9dc5, record.provider);
  hash = fnv(Math.imul(hash, 0x01000193) >>> 0, record.model); // the NUL before: `hash ^ 0` is `hash`
  hash = fnv(Math.imul(hash, 0x01000193) >>> 0, record.surface);
  hash = fnv(Math.imul(hash, 0x01000193) >>> 0, record.task);
  return fnv(Math.imul(hash, 0x01000193) >>> 0, String(record.trial));
}

function fnv(hash: number, text: string): number {
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

interface Ranked<T> {
  priority: number;
  order: number;
  kept: T;
}

/** Does `a` rank after `b`: higher priority, or equal priority and offered later? */
function after(a: Ranked<unknown>, b: Ranked<unknown>): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.order > b.order);
}

/**
 * Keeps the `limit` entries of lowest priority (ties: the first offered), in
 * memory for `limit` entries at most: a binary max-heap whose top is the
 * entry to drop next. A run of 100,000 trials keeps 2,000 per pool. `keep`
 * makes what is kept of a record that ranks (from its line's place, when given).
 */
function boundedPool<T>(initialLimit: number, keep: (record: TrialRecord, place: TrialLinePlace | undefined) => T) {
  let limit = initialLimit;
  const heap: Ranked<T>[] = [];
  let seen = 0;
  const swap = (i: number, j: number) => {
    const item = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = item;
  };
  const siftUp = (index: number) => {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!after(heap[index]!, heap[parent]!)) return;
      swap(index, parent);
      index = parent;
    }
  };
  const siftDown = (index: number) => {
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let largest = index;
      if (left < heap.length && after(heap[left]!, heap[largest]!)) largest = left;
      if (right < heap.length && after(heap[right]!, heap[largest]!)) largest = right;
      if (largest === index) return;
      swap(index, largest);
      index = largest;
    }
  };
  /** Drop the highest-priority entries beyond `limit`. */
  const trimTo = (next: number) => {
    limit = Math.max(0, next);
    while (heap.length > limit) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
      siftDown(0);
    }
  };
  return {
    /**
     * Count a trial, and keep it if it ranks. It is ranked only while the pool
     * can keep anything, and converted only when kept, so most records are never.
     */
    offer(record: TrialRecord, place?: TrialLinePlace) {
      const order = seen;
      seen += 1;
      if (limit === 0) return;
      const rank = priority(record);
      if (heap.length < limit) {
        heap.push({ priority: rank, order, kept: keep(record, place) });
        siftUp(heap.length - 1);
        return;
      }
      // Full: a later entry replaces the top only with a strictly lower priority.
      if (rank >= heap[0]!.priority) return;
      heap[0] = { priority: rank, order, kept: keep(record, place) };
      siftDown(0);
    },
    /** Lower the limit (never raised): the entries of lowest priority seen so far stay. */
    shrink(next: number) {
      if (next < limit) trimTo(next);
    },
    get size() {
      return heap.length;
    },
    /** The kept entries, lowest priority first. */
    take(): T[] {
      return [...heap].sort((a, b) => a.priority - b.priority || a.order - b.order).map((item) => item.kept);
    },
    get seen() {
      return seen;
    },
  };
}

/**
 * A capped, deterministic sample for the trial browser: failures and errored
 * trials first (they are what people open), then passes to fill the cap.
 * Within each class the sample is spread evenly over the run by a hash, not
 * biased to whichever trials were written first.
 */
export function createTrialSample(limit = DEFAULT_SAMPLE_LIMIT) {
  const problems = boundedPool(limit, toSampleTrial);
  // Passes are kept unconverted and converted only if they are shown: in most
  // runs the problems fill the cap and every pass is let go (at 10,000 trials
  // converting the passes that came and went was ~2/3 of the sample's cost).
  // They are bounded like the pool, and the pool empties as problems come.
  // A pass is kept as the place of its line in trials.jsonl when the caller
  // knows it (the runner does), and the line read back only if it is shown: a
  // kept pass lives through many of the trials' young-generation collections.
  // As records they were most of what a 10,000-trial run's trials promoted
  // (~4,700 passes kept for a while); as their lines (flat strings, ~3 KB
  // each) still ~40 % of it, ~14 MB copied and then promoted; a place is two
  // numbers. Measured interleaved (10k replay, compiled, 6 pairs on a loaded
  // host): lines kept -> places kept, the trials' CPU 2045 -> 1999 ms
  // (medians), the run's peak RSS 233 -> 224 MB. Read back, a line is the
  // record as a later `toolmark report` reads it from the file.
  const passes = boundedPool(limit, (record, place): TrialRecord | TrialLinePlace => place ?? record);
  return {
    /** One trial; `place` is where its line is in the run's trials.jsonl, when the caller knows it. */
    add(record: TrialRecord, place?: TrialLinePlace) {
      if (trialOutcome(record) === 'pass') {
        passes.offer(record, place);
        return;
      }
      problems.offer(record);
      // Passes only fill what the problems leave of the cap, and problems never leave: once
      // they hold `limit`, no pass can be shown and the pool of passes is let go.
      passes.shrink(limit - problems.size);
    },
    /** The sample; `readLines` reads the lines at the places given with `add` (none needed when none were). */
    finish(readLines?: (places: readonly TrialLinePlace[]) => string[]): {
      trials: SampleTrial[];
      total: number;
      limit: number;
    } {
      const chosen = problems.take();
      if (chosen.length < limit) {
        const shown = passes.take().slice(0, limit - chosen.length);
        const places = shown.filter(isPlace);
        const lines = places.length === 0 ? [] : readPlaces(readLines, places);
        let next = 0;
        for (const kept of shown)
          chosen.push(toSampleTrial(isPlace(kept) ? (JSON.parse(lines[next++]!) as TrialRecord) : kept));
      }
      chosen.sort(
        (a, b) =>
          a.surface.localeCompare(b.surface) ||
          a.task.localeCompare(b.task) ||
          a.model.localeCompare(b.model) ||
          a.trial - b.trial,
      );
      return { trials: chosen, total: problems.seen + passes.seen, limit };
    },
  };
}

/** A place, not a record (every record names its task). */
function isPlace(kept: TrialRecord | TrialLinePlace): kept is TrialLinePlace {
  return !('task' in kept);
}

function readPlaces(
  readLines: ((places: readonly TrialLinePlace[]) => string[]) | undefined,
  places: readonly TrialLinePlace[],
): string[] {
  if (readLines === undefined) throw new Error('the trial sample kept lines by place: finish needs their reader');
  return readLines(places);
}
