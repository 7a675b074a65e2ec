import type { Summary, SummaryGroup } from '../spec/index.ts';
import { formatRate } from './headline.ts';

/**
 * The deferred-loading table (issue 19), shared by report.md and
 * report.html: per deferred surface and split (all kinds), recall@k and
 * rank of the needed tool, selection split by whether the search found it
 * ("the search missed it" vs "the model ignored it"), and schema tokens —
 * initial, loaded per trial, per request. Empty for a run with no deferred surface.
 */
export const RETRIEVAL_HEADER = [
  'surface',
  'split',
  'judged',
  'recall@k',
  'searched',
  'mean rank',
  'selection if found',
  'selection if missed',
  'initial schema tok',
  'loaded tok / trial',
  'tok / request',
];

export const RETRIEVAL_NOTE =
  'Deferred surfaces only. judged = trials whose task needs a tool that is not always loaded. recall@k: a search returned that tool among its top k; ' +
  'searched: the model searched at all. selection if found is low when the model ignored a tool the search found; selection if missed when the search missed it. ' +
  'Schema tokens (o200k): the first request (always-loaded tools + search tool), what searches loaded per trial, and the mean per request.';

export function retrievalGroups(summary: Summary): SummaryGroup[] {
  return summary.groups.filter((group) => group.kind === 'all' && group.retrieval !== undefined);
}

export function retrievalRow(group: SummaryGroup): string[] {
  const retrieval = group.retrieval!;
  const round = (value: number) => String(Math.round(value));
  return [
    group.surface,
    group.split,
    String(retrieval.recall_at_k.n),
    `${formatRate(retrieval.recall_at_k)} @${retrieval.top_k}`,
    formatRate(retrieval.searched),
    retrieval.mean_rank === null ? '–' : retrieval.mean_rank.toFixed(2),
    formatRate(retrieval.selection_given_found),
    formatRate(retrieval.selection_given_missed),
    round(retrieval.initial_schema_tokens),
    round(retrieval.loaded_schema_tokens),
    round(retrieval.request_schema_tokens),
  ];
}
