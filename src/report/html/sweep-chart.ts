import type { TopLevelSpec } from 'vega-lite';
import type { SweepRow } from '../sweep.ts';

/**
 * The sweep chart (issue 19 item 4): selection accuracy with its Wilson 95%
 * interval against tool count (a line per provider/model, dashed for a
 * non-eager loading mode), beside schema tokens against tool count.
 */
export function sweepSpec(rows: readonly SweepRow[]): TopLevelSpec {
  const values = rows.map((row) => ({
    model: `${row.provider}:${row.model}`,
    loading: row.loading,
    tools: row.tools,
    // The first request's schema: what a deferred rung saves up front shows as its own (dashed) line.
    tokens: row.initial_schema_tokens,
    value: row.selection.value,
    low: row.selection.ci95?.[0] ?? row.selection.value,
    high: row.selection.ci95?.[1] ?? row.selection.value,
    n: row.selection.n,
  }));
  const x = {
    field: 'tools',
    type: 'quantitative',
    title: 'tools in the catalog',
    scale: { zero: false, nice: false },
  };
  const series = {
    field: 'model',
    type: 'nominal',
    title: 'provider:model',
    legend: { orient: 'bottom', labelLimit: 1000 },
  };
  const dash = { field: 'loading', type: 'nominal', title: 'loading', legend: { orient: 'bottom' } };
  return {
    data: { values },
    hconcat: [
      {
        width: 320,
        height: 220,
        title: 'selection accuracy',
        encoding: { x, color: series },
        layer: [
          {
            mark: { type: 'rule', strokeWidth: 2, opacity: 0.5 },
            encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
          },
          {
            mark: { type: 'line', point: { filled: true, size: 60 } },
            encoding: {
              y: {
                field: 'value',
                type: 'quantitative',
                title: 'selection',
                scale: { domain: [0, 1] },
                axis: { format: '.0%', tickCount: 5 },
              },
              strokeDash: dash,
              tooltip: [
                { field: 'model' },
                { field: 'loading' },
                { field: 'tools' },
                { field: 'value', format: '.1%', title: 'selection' },
                { field: 'n' },
              ],
            },
          },
        ],
      },
      {
        width: 320,
        height: 220,
        title: 'schema tokens',
        mark: { type: 'line', point: { filled: true, size: 60 }, color: '#7f7f7f' },
        encoding: {
          x,
          y: { field: 'tokens', type: 'quantitative', title: 'schema tokens (first request)' },
          strokeDash: dash,
          tooltip: [{ field: 'tools' }, { field: 'loading' }, { field: 'tokens', format: ',.0f' }],
        },
      },
    ],
  } as TopLevelSpec;
}
