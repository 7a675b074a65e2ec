import type { Expect, LoadingRecord, SearchRecord, TrialRecord, Verdict } from '../spec/index.ts';
import { METRIC_ONLY } from './grade-context.ts';

/**
 * Retrieval on a deferred surface (issue 19): was a tool for the action the
 * task needs among what the searches returned, and at which rank. Read with
 * selection, it tells "the search missed it" from "the model ignored it".
 * A metric only: it never decides `success` (the task's own graders do).
 */

/** `expected` of the `retrieval` verdict: the actions any of which counts as found, and the search's k. */
export interface RetrievalExpected {
  actions: string[];
  top_k: number;
}

/** `actual` of the `retrieval` verdict. */
export interface RetrievalActual {
  /** Searches the trial made (native or emulated). */
  searches: number;
  /** 1-based rank of the first hit for an expected action, in the first search that returned one; null if none did. */
  rank: number | null;
  /** Index (in `loading.searches`) of that search. */
  search: number | null;
}

/** The actions retrieval is judged on: the first the task needs that is not always loaded; null when none is needed. */
export function retrievalTarget(
  expect: Expect,
  loading: Pick<LoadingRecord, 'always_loaded_actions'>,
): string[] | null {
  const always = new Set(loading.always_loaded_actions);
  const needed = (actions: readonly string[]) => (actions.some((action) => always.has(action)) ? null : [...actions]);
  if (expect.action !== undefined) return needed([expect.action]);
  if (expect.any_of !== undefined) return needed(expect.any_of);
  for (const step of expect.sequence ?? []) {
    const action = typeof step === 'string' ? step : step.action;
    if (!always.has(action)) return [action];
  }
  return null;
}

/** Where the first hit for one of `actions` is: search index and 1-based rank. */
export function firstHit(
  searches: readonly SearchRecord[],
  actions: readonly string[],
): { search: number; rank: number } | null {
  for (const [search, record] of searches.entries()) {
    const at = record.results.findIndex((hit) => hit.actions.some((action) => actions.includes(action)));
    if (at >= 0) return { search, rank: at + 1 };
  }
  return null;
}

/** The retrieval verdict of a deferred trial, or null (eager surface, or nothing to retrieve). */
export function retrievalVerdict(record: TrialRecord, expect: Expect): Verdict | null {
  const loading = record.loading;
  if (!loading) return null;
  const actions = retrievalTarget(expect, loading);
  if (actions === null) return null;
  const hit = firstHit(loading.searches, actions);
  const expected: RetrievalExpected = { actions, top_k: loading.top_k };
  const actual: RetrievalActual = {
    searches: loading.searches.length,
    rank: hit?.rank ?? null,
    search: hit?.search ?? null,
  };
  return { grader: 'retrieval', pass: hit !== null, expected, actual, note: METRIC_ONLY };
}
