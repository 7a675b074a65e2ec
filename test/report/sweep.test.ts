import { describe, expect, it } from 'vitest';
import { sweepCaption, sweepRows, sweepTable } from '../../src/report/index.ts';
import type { Manifest, Summary, SummaryGroup } from '../../src/spec/index.ts';

// Hand computation (Wilson 95%, z = 1.959964) for 8 of 10:
//   centre = (0.8 + z²/20) / (1 + z²/10) = (0.8 + 0.192073) / 1.384146 = 0.716740
//   half   = z·sqrt(0.8·0.2/10 + z²/400) / 1.384146 = 1.959964·sqrt(0.016 + 0.009604) / 1.384146 = 0.226561
//   → [0.490, 0.943], shown as 80% [49–94].
const RATE_8_OF_10 = { value: 0.8, n: 10, ci95: [0.490179, 0.943301] as [number, number] };
const RATE_5_OF_10 = { value: 0.5, n: 10, ci95: [0.236593, 0.763407] as [number, number] };

const group = (surface: string, split: 'train' | 'all', selection: typeof RATE_8_OF_10): SummaryGroup =>
  ({
    provider: 'replay',
    model: 'synthetic-hasty',
    surface,
    split,
    kind: 'all',
    selection_accuracy: selection,
    task_success: selection,
  }) as unknown as SummaryGroup;

const manifest = {
  surfaces: [
    { domain: 'tickets', id: 'typed-v2.n5', hash: 'a', schema_tokens: 812, schema_bytes: 3000 },
    { domain: 'tickets', id: 'typed-v2.n20', hash: 'b', schema_tokens: 3586, schema_bytes: 13000 },
    { domain: 'tickets', id: 'typed-v2.n20.deferred', hash: 'c', schema_tokens: 3640, schema_bytes: 13200 },
  ],
  sweep: {
    v: 1,
    domain: 'tickets',
    base: { surface: 'typed-v2', hash: 'a', tools: 5 },
    from: ['generated'],
    seed: 0,
    shuffle: null,
    rungs: [
      { surface: 'typed-v2.n5', tools: 5, distractors: 0, loading: 'eager' },
      { surface: 'typed-v2.n20', tools: 20, distractors: 15, loading: 'eager' },
      {
        surface: 'typed-v2.n20.deferred',
        tools: 20,
        distractors: 15,
        loading: 'deferred',
        initial_schema_tokens: 140,
        top_k: 5,
      },
    ],
  },
} as unknown as Manifest;

describe('sweep rows and table', () => {
  it('one row per rung from the (surface, all, all) group, with its tokens; the train-only group is not read', () => {
    const summary = {
      groups: [
        group('typed-v2.n5', 'train', RATE_5_OF_10),
        group('typed-v2.n5', 'all', RATE_8_OF_10),
        group('typed-v2.n20', 'all', RATE_5_OF_10),
        group('typed-v2.n20.deferred', 'all', RATE_8_OF_10),
      ],
    } as unknown as Summary;
    const rows = sweepRows(manifest, summary);
    expect(rows.map((row) => [row.tools, row.distractors, row.schema_tokens, row.selection.value])).toEqual([
      [5, 0, 812, 0.8],
      [20, 15, 3586, 0.5],
      [20, 15, 3640, 0.8],
    ]);
    expect(sweepTable(rows)).toEqual([
      [
        'tools',
        'distractors',
        'loading',
        'schema tokens',
        'first request',
        'n',
        'selection [95% CI]',
        'task success [95% CI]',
      ],
      ['5', '0', 'eager', '812', '812', '10', '80% [49–94]', '80% [49–94]'],
      ['20', '15', 'eager', '3,586', '3,586', '10', '50% [24–76]', '50% [24–76]'],
      // A deferred rung: the whole payload, and the first request from the plan (always-loaded + search_tools).
      ['20', '15', 'deferred', '3,640', '140', '10', '80% [49–94]', '80% [49–94]'],
    ]);
  });

  it('no sweep in the manifest: no rows', () => {
    expect(sweepRows({ ...manifest, sweep: undefined }, { groups: [] } as unknown as Summary)).toEqual([]);
  });

  it('the caption says what a deferred curve reflects (BM25 top k), and that synthetic curves are scripted', () => {
    const synthetic = sweepCaption(manifest, true);
    expect(synthetic).toContain("A deferred rung's selection reflects retrieval");
    expect(synthetic).toContain('BM25 top 5');
    expect(synthetic).toContain('they describe scripted behaviours');
    expect(synthetic).toContain("searches once with the user's words");
    // A live model's sweep: the retrieval sentence, no synthetic note.
    const live = sweepCaption(manifest, false);
    expect(live).toContain('BM25 top 5');
    expect(live).not.toContain('scripted');
    // Eager rungs only: no retrieval sentence.
    const eagerOnly = {
      ...manifest,
      sweep: { ...manifest.sweep!, rungs: manifest.sweep!.rungs.filter((rung) => rung.loading === 'eager') },
    } as Manifest;
    expect(sweepCaption(eagerOnly, true)).not.toContain('retrieval');
    expect(sweepCaption(eagerOnly, true)).toContain('they describe scripted behaviours');
  });
});
