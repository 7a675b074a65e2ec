/**
 * The end-of-run terminal table and the report's best/worst headline:
 * grouped by domain and provider (never pooled), rates with their Wilson
 * intervals, ending with the path of the HTML report.
 */
import { describe, expect, it } from 'vitest';
import { formatSummaryTable } from '../../src/cli/summary-table.ts';
import { bestAndWorst } from '../../src/report/best-worst.ts';
import type { Manifest, Summary } from '../../src/spec/index.ts';
import { FIXTURE_SURFACES, fixtureSummary, fixtureTrials } from './fixture-run.ts';

const models = [
  { provider: 'replay', model: 'careful' },
  { provider: 'replay', model: 'hasty' },
];

function fixture(): { summary: Summary; manifest: Manifest } {
  const records = fixtureTrials({ models });
  // Both readers take only the surfaces' domains from the manifest.
  const manifest = { surfaces: FIXTURE_SURFACES.map((surface) => ({ domain: 'tickets', id: surface.id })) } as Manifest;
  return { summary: fixtureSummary(records, 'run', false, 3), manifest };
}

describe('formatSummaryTable', () => {
  it('prints a block per domain × provider, a row per surface with train and held-out success and intervals, then the report path', () => {
    const { summary, manifest } = fixture();
    const text = formatSummaryTable(summary, { manifest, htmlReport: 'results/x/report.html' });
    const lines = text.split('\n');
    expect(lines[0]).toBe('tickets · replay:careful');
    expect(lines[1]).toMatch(/^surface\s+trials\s+success train\s+success held-out\s+selection/);
    const careful = lines.indexOf('tickets · replay:careful');
    const hasty = lines.indexOf('tickets · replay:hasty');
    expect(hasty).toBeGreaterThan(careful);
    // One row per surface in each block (typed-v2, wide-v1), not one per split.
    expect(lines.slice(careful + 3, hasty - 1).map((line) => line.split(/\s+/)[0])).toEqual(['typed-v2', 'wide-v1']);
    const group = summary.groups.find(
      (entry) =>
        entry.model === 'careful' && entry.surface === 'typed-v2' && entry.split === 'train' && entry.kind === 'all',
    )!;
    const [low, high] = group.task_success.ci95!;
    expect(lines[careful + 3]).toContain(
      `${Math.round(group.task_success.value! * 100)}% [${Math.round(low * 100)}–${Math.round(high * 100)}]`,
    );
    expect(lines.at(-1)).toBe('report: results/x/report.html');
  });
});

describe('bestAndWorst', () => {
  it('names the best and the worst surface per provider and domain, from the all-splits groups', () => {
    const { summary, manifest } = fixture();
    const rows = bestAndWorst(summary, manifest);
    expect(rows.map((row) => [row.provider, row.domain])).toEqual([
      ['replay:careful', 'tickets'],
      ['replay:hasty', 'tickets'],
    ]);
    for (const row of rows) {
      const rates = summary.groups
        .filter(
          (group) =>
            `${group.provider}:${group.model}` === row.provider && group.kind === 'all' && group.split === row.split,
        )
        .map((group) => group.task_success.value!);
      expect(row.best.rate.value).toBe(Math.max(...rates));
      expect(row.worst.rate.value).toBe(Math.min(...rates));
    }
  });
});
