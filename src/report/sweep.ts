import type { Manifest, Rate, Summary } from '../spec/index.ts';
import { formatNumber, formatRate } from './headline.ts';

/** One rung × provider/model of a sweep: tool count, schema cost and selection accuracy (issue 19 item 4). */
export interface SweepRow {
  provider: string;
  model: string;
  surface: string;
  loading: string;
  tools: number;
  distractors: number;
  /** o200k tokens of the rung's full payload (manifest.surfaces). */
  schema_tokens: number;
  /** o200k tokens of the first request: the full payload on an eager rung, always-loaded tools + `search_tools` on a deferred one. */
  initial_schema_tokens: number;
  /** Both splits, every kind: the summary group (surface, split all, kind all); Wilson 95% interval. */
  selection: Rate;
  /** Task success of the same group, for reading selection against the whole task. */
  task_success: Rate;
}

/** The sweep table of a run made by `toolmark sweep` (empty for any other run). */
export function sweepRows(manifest: Manifest, summary: Summary): SweepRow[] {
  const plan = manifest.sweep;
  if (!plan) return [];
  const models = [
    ...new Map(summary.groups.map((group) => [`${group.provider}\n${group.model}`, group] as const)).values(),
  ];
  const rows: SweepRow[] = [];
  for (const { provider, model } of models) {
    for (const rung of plan.rungs) {
      const group = summary.groups.find(
        (candidate) =>
          candidate.provider === provider &&
          candidate.model === model &&
          candidate.surface === rung.surface &&
          candidate.split === 'all' &&
          candidate.kind === 'all',
      );
      if (!group) continue;
      const cost = manifest.surfaces.find((surface) => surface.domain === plan.domain && surface.id === rung.surface);
      rows.push({
        provider,
        model,
        surface: rung.surface,
        loading: rung.loading,
        tools: rung.tools,
        distractors: rung.distractors,
        schema_tokens: cost?.schema_tokens ?? 0,
        initial_schema_tokens: rung.initial_schema_tokens ?? cost?.schema_tokens ?? 0,
        selection: group.selection_accuracy,
        task_success: group.task_success,
      });
    }
  }
  return rows;
}

/** Header and cells of the sweep table, shared by report.md and the terminal. */
export function sweepTable(rows: readonly SweepRow[]): string[][] {
  const several = new Set(rows.map((row) => `${row.provider}/${row.model}`)).size > 1;
  return [
    [
      ...(several ? ['model'] : []),
      'tools',
      'distractors',
      'loading',
      'schema tokens',
      'first request',
      'n',
      'selection [95% CI]',
      'task success [95% CI]',
    ],
    ...rows.map((row) => [
      ...(several ? [`${row.provider}/${row.model}`] : []),
      String(row.tools),
      String(row.distractors),
      row.loading,
      formatNumber(row.schema_tokens),
      formatNumber(row.initial_schema_tokens),
      String(row.selection.n),
      formatRate(row.selection),
      formatRate(row.task_success),
    ]),
  ];
}

/**
 * Where the distractors came from, what a deferred rung's selection
 * reflects, and (synthetic runs) that the curves are scripted behaviours —
 * in a sentence each, for both reports and the terminal.
 */
export function sweepCaption(manifest: Manifest, synthetic: boolean): string {
  const plan = manifest.sweep!;
  const order = plan.shuffle === null ? 'after the base tools' : `shuffled with seed ${plan.shuffle}`;
  const deferred = plan.rungs.filter((rung) => rung.loading === 'deferred');
  const topK = [...new Set(deferred.map((rung) => rung.top_k).filter((k) => k !== undefined))];
  const retrieval = deferred.length
    ? ` A deferred rung's selection reflects retrieval: the model chooses among the always-loaded tools and what its ` +
      `searches returned (the emulated search_tools: BM25 top ${topK.length ? topK.join('/') : 'k'} over every ` +
      `deferred tool, distractors included; a provider's native search where it has one), so it falls when the ` +
      `search misses the tool or returns distractors.`
    : '';
  const note = synthetic
    ? ' These curves come from synthetic cassettes: they describe scripted behaviours (scripts/synthetic/), not any real model' +
      (deferred.length
        ? `; on deferred rungs the scripted model searches once with the user's words and picks only among the results ` +
          `(scripts/synthetic/searching.ts), so its deferred curve is what BM25 retrieval finds for those words.`
        : '.')
    : '';
  return (
    `Sweep of \`${plan.base.surface}\` (${plan.base.tools} tools, domain ${plan.domain}): distractors from ` +
    `${plan.from.join(', ')} (seed ${plan.seed}, ${order}) added up to each size; ` +
    `selection and task success over both splits and every kind. Schema tokens: the whole payload; ` +
    `first request: what the first request carries (a deferred rung: always-loaded tools + search_tools).${retrieval}${note}`
  );
}
