/**
 * The revision review behind compare.html and the PR report.md: word diffs,
 * surface diffs, the decision and its "more tasks" figure (against Connor's
 * formula computed by hand), flipped tasks linked to changed tools with
 * both transcripts, the confusion delta, and the comment-size limit.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCompareReview, decide, diffSurfaces, wordDiff, type ReviewSide } from '../../src/aggregate/index.ts';
import { schemaCost } from '../../src/cost/schema-cost.ts';
import { providerDisagreement } from '../../src/report/compare-wording.ts';
import {
  appendJobSummary,
  COMMENT_LIMIT,
  renderCompareHtml,
  renderComparePullRequest,
  writeCompareReports,
} from '../../src/report/index.ts';
import type {
  CompareReview,
  Comparison,
  ComparedMetric,
  ExposedTool,
  ResolvedSurface,
  TrialRecord,
} from '../../src/spec/index.ts';
import { moreTasksToDetect, pairsToDetect } from '../../src/stats/index.ts';
import { overfitPair, trialRecord } from '../aggregate/runs.ts';

const join_ = (parts: { op: string; text: string }[], keep: string) =>
  parts
    .filter((part) => part.op === 'same' || part.op === keep)
    .map((part) => part.text)
    .join('');

describe('wordDiff', () => {
  it('marks deleted and added words and gives both texts back', () => {
    const before = 'Read one support ticket by its ID. Never changes the ticket.';
    const after = 'Read one ticket by ID (read-only). Never changes the ticket.';
    const parts = wordDiff(before, after);
    expect(join_(parts, 'del')).toBe(before);
    expect(join_(parts, 'add')).toBe(after);
    expect(parts.slice(0, 3)).toEqual([
      { op: 'same', text: 'Read one ' },
      { op: 'del', text: 'support ' },
      { op: 'same', text: 'ticket by ' },
    ]);
    // A changed stretch is one deletion then one addition, not interleaved words.
    expect(parts[3]).toEqual({ op: 'del', text: 'its ID.' });
    expect(parts[4]).toEqual({ op: 'add', text: 'ID (read-only).' });
  });

  it('handles empty sides', () => {
    expect(wordDiff('', 'new text')).toEqual([{ op: 'add', text: 'new text' }]);
    expect(wordDiff('old', '')).toEqual([{ op: 'del', text: 'old' }]);
    expect(wordDiff('same', 'same')).toEqual([{ op: 'same', text: 'same' }]);
  });
});

function tool(action: string, name: string, description: string, parameters: Record<string, unknown>): ExposedTool {
  return { name, description, tool: action, mapping: { kind: 'identity', action }, parameters };
}

function surface(id: string, hash: string, tools: ExposedTool[]): ResolvedSurface {
  return {
    domain: 'tickets',
    id,
    extends: null,
    description: '',
    strict: false,
    system: null,
    tools,
    file: `${id}.yaml`,
    hash,
    payload: tools.map((entry) => ({
      name: entry.name,
      description: entry.description,
      parameters: entry.parameters,
      strict: false,
    })),
  };
}

const idSchema = (description: string, type = 'string') => ({
  type: 'object',
  properties: { ticket_id: { type, description } },
  required: ['ticket_id'],
});
const A = surface('typed', 'sha256:typed', [
  tool('ticket.get', 'get_ticket', 'Read one support ticket by its ID.', idSchema('Ticket ID such as T-102')),
  tool('ticket.list', 'list_tickets', 'List tickets.', { type: 'object', properties: {} }),
  tool('ticket.lookup_slow', 'lookup_ticket_slow', 'Slow backup read.', idSchema('Ticket ID')),
]);
const B = surface('typed-v2', 'sha256:typed-v2', [
  tool('ticket.list', 'list_tickets', 'List tickets.', { type: 'object', properties: {} }),
  tool('ticket.get', 'read_ticket', 'Read one ticket by ID (read-only).', idSchema('Ticket ID, e.g. T-102', 'integer')),
  tool('ticket.preview_followup', 'draft_followup', 'Draft a note.', {
    type: 'object',
    properties: { note: { type: 'string' } },
  }),
]);

describe('diffSurfaces', () => {
  const diff = diffSurfaces(A, B, schemaCost);
  const byKey = (key: string) => diff.tools.find((entry) => entry.key === key)!;

  it('finds added, removed, renamed and reordered tools', () => {
    expect(diff.tools.map((entry) => [entry.key, entry.status])).toEqual([
      ['ticket.list', 'unchanged'],
      ['ticket.get', 'changed'],
      ['ticket.preview_followup', 'added'],
      ['ticket.lookup_slow', 'removed'],
    ]);
    expect(byKey('ticket.get')).toMatchObject({
      name: { a: 'get_ticket', b: 'read_ticket' },
      renamed: true,
      position: { a: 0, b: 1 },
    });
    expect(diff.reordered).toBe(true);
  });

  it('diffs description and parameter texts word by word, and the schema apart from them', () => {
    const get = byKey('ticket.get');
    expect(get.texts.map((text) => text.field)).toEqual(['description', 'parameter ticket_id']);
    expect(join_(get.texts[1]!.diff, 'add')).toBe('Ticket ID, e.g. T-102');
    expect(get.schema).toEqual([{ path: 'ticket_id', change: 'type: "string" → "integer"' }]);
  });

  it('prices every tool and the payload with the same counter as `toolmark tokens`', () => {
    const get = byKey('ticket.get');
    expect(get.cost.a).toEqual(schemaCost(A.payload[0]));
    expect(get.cost.b).toEqual(schemaCost(B.payload[1]));
    expect(byKey('ticket.lookup_slow').cost.b).toBeNull();
    expect(diff.total).toEqual({ a: schemaCost(A.payload), b: schemaCost(B.payload) });
  });
});

describe('how many more tasks a difference needs', () => {
  it("is Connor's n for McNemar, computed by hand", () => {
    // δ = 0.1, ψ = 0.2, z(0.975) = 1.959964, z(0.8) = 0.841621:
    // n = (1.959964·√0.2 + 0.841621·√(0.2 − 0.01))² / 0.01 = (0.876523 + 0.366855)² / 0.01 = 154.60 → 155.
    expect(pairsToDetect(0.1, 0.2)).toBe(155);
    expect(pairsToDetect(-0.1, 0.2)).toBe(155);
    expect(pairsToDetect(0, 0.2)).toBeNull();
    expect(pairsToDetect(0.1, 0)).toBeNull();
    // 60 pairs over 12 tasks (5 trials each), 12 discordant (ψ = 0.2), δ = 0.1: 155 pairs = 31 tasks, 19 more.
    expect(moreTasksToDetect({ binary: true, difference: 0.1, mcnemar: { b: 4, c: 8 }, n: 60, tasks: 12 })).toEqual({
      moreTasks: 19,
      trialsPerTask: 5,
    });
    expect(moreTasksToDetect({ binary: false, difference: 0.1, mcnemar: null, n: 60, tasks: 12 })).toBeNull();
  });
});

function metric(
  name: string,
  verdict: ComparedMetric['verdict'],
  difference = 0.05,
  extra: Partial<ComparedMetric> = {},
): ComparedMetric {
  return {
    metric: name,
    binary: true,
    higher_is_better: name !== 'unsafe_proposals',
    n: 100,
    tasks: 20,
    a: 0.5,
    b: 0.5 + difference,
    difference,
    low: difference - 0.03,
    high: difference + 0.03,
    resampled: 'tasks',
    mcnemar: { b: 2, c: 7, p: 0.03 },
    mde: 0.08,
    verdict,
    ...extra,
  };
}

function comparison(train: ComparedMetric[] | null, heldout: ComparedMetric[] | null): Comparison {
  const section = (split: 'train' | 'heldout', metrics: ComparedMetric[]) => ({
    split,
    kind: 'all',
    pairs: 100,
    schema_tokens: { a: 1, b: 1, difference: 0 },
    metrics,
    flipped: { better: [], worse: [] },
  });
  const side = {
    label: 'x',
    run_id: 'r',
    run_dir: '/r',
    surface: 's',
    surfaces: ['s'],
    providers: ['replay:x'],
    synthetic: false,
    trials: 200,
    errored: 0,
    first_error: null,
  };
  return {
    v: 1,
    a: side,
    b: side,
    pairing: {
      key: ['domain', 'task', 'trial'],
      pairs: 200,
      unpaired_a: 0,
      unpaired_b: 0,
      errored: 0,
      split_trials: false,
    },
    aa: false,
    sections: [...(train ? [section('train', train)] : []), ...(heldout ? [section('heldout', heldout)] : [])],
    heldout_check: { status: 'no_train', message: '' },
    noise_floor: [],
    warnings: [],
  };
}

describe('providerDisagreement', () => {
  it('names the providers whose decision is worse than the pooled one, and only them', () => {
    const pooled: CompareReview['decision'] = { outcome: 'ship', worse: [], needed: null };
    const entry = (provider: string, outcome: CompareReview['decision']['outcome']) => ({
      provider,
      comparison: comparison(null, null),
      decision: { outcome, worse: [], needed: null },
    });
    const review = {
      decision: pooled,
      byProvider: [entry('p:a', 'ship'), entry('p:b', 'overfit'), entry('p:c', 'no-change')],
    } as unknown as CompareReview;
    expect(providerDisagreement(review)).toBe(
      'Not for every provider: p:b — likely overfit; p:c — no detectable change.',
    );
    expect(providerDisagreement({ ...review, decision: { ...pooled, outcome: 'overfit' } })).toBeNull();
  });
});

describe('decide', () => {
  it('ships only when train and held-out both improve and nothing got worse', () => {
    expect(decide(comparison([metric('task_success', 'better')], [metric('task_success', 'better')])).outcome).toBe(
      'ship',
    );
    expect(
      decide(comparison([metric('task_success', 'better')], [metric('task_success', 'no detectable change')])).outcome,
    ).toBe('overfit');
    expect(decide(comparison([metric('task_success', 'better')], null)).outcome).toBe('train-only');
    const worse = decide(
      comparison(
        [metric('task_success', 'better'), metric('unsafe_proposals', 'worse')],
        [metric('task_success', 'better')],
      ),
    );
    expect(worse).toMatchObject({ outcome: 'regression', worse: ['train/unsafe_proposals'] });
  });

  it('says how many more tasks the larger observed change would need', () => {
    // Held-out: δ = 0.1 with 9 of 100 pairs discordant (ψ = 0.1, raised to δ): n = (1.959964·√0.1 + 0)² / 0.01 = 38.4 → 39 pairs = 8 tasks at 5 trials.
    const decision = decide(
      comparison(
        [metric('task_success', 'no detectable change', 0.02)],
        [metric('task_success', 'no detectable change', 0.1, { mcnemar: { b: 1, c: 9, p: 0.02 } })],
      ),
    );
    expect(decision.outcome).toBe('no-change');
    expect(decision.needed).toEqual({ split: 'heldout', difference: 0.1, moreTasks: 0, trialsPerTask: 5 });
  });
});

function sides(a: TrialRecord[], b: TrialRecord[]): [ReviewSide, ReviewSide] {
  return [
    { label: 'run-a', runId: 'run-a', runDir: '/runs/a', surface: null, records: () => a },
    { label: 'run-b', runId: 'run-b', runDir: '/runs/b', surface: null, records: () => b },
  ];
}

async function overfitReview(surfaces: ResolvedSurface[] | null = [A, B]): Promise<CompareReview> {
  const { a, b } = overfitPair();
  const [sideA, sideB] = sides(a.map(trialRecord), b.map(trialRecord));
  return buildCompareReview(
    sideA,
    sideB,
    { surfaces, tasks: null, cost: schemaCost, prices: { fixture: { input_per_million: 1, output_per_million: 2 } } },
    { seed: 7 },
  );
}

describe('buildCompareReview', () => {
  it('links each flipped task to the changed tools it touches and shows both transcripts of a discordant pair', async () => {
    const review = await overfitReview();
    expect(review.decision.outcome).toBe('overfit');
    expect(review.flippedTotal).toBe(9);
    // Worse first.
    const worse = review.flipped[0]!;
    expect(worse).toMatchObject({ task: 'train-8', direction: 'worse', a: { c: 1, n: 1 }, b: { c: 0, n: 1 } });
    // The task expects ticket.get (renamed, re-described) and B called ticket.list (same text, moved 2 → 1);
    // the removed lookup_ticket_slow and the added draft_followup are not its tools.
    expect(worse.changedTools).toEqual(['list_tickets', 'read_ticket']);
    expect(worse.pairs).toHaveLength(1);
    expect(worse.pairs[0]!.a).toMatchObject({ pass: true, calls: [{ routed: 'ticket.get', ok: true }] });
    expect(worse.pairs[0]!.b).toMatchObject({ pass: false, calls: [{ routed: 'ticket.list' }] });
    expect(review.surfaceDiffs).toHaveLength(1);
    expect(review.surfaceDiffs[0]!.unavailable).toBeNull();
  });

  it('counts which first choices moved between the sides', async () => {
    const review = await overfitReview();
    // Must-call tasks expecting ticket.get: train 8 fail → pass (list → get), 1 pass → fail; held-out unchanged.
    expect(review.confusion).toEqual([
      {
        expected: 'ticket.get',
        rows: [
          { chosen: 'ticket.get', a: 7, b: 14 },
          { chosen: 'ticket.list', a: 11, b: 4 },
        ],
        moved: [
          { from: 'ticket.list', to: 'ticket.get', count: 8 },
          { from: 'ticket.get', to: 'ticket.list', count: 1 },
        ],
      },
    ]);
    expect(review.costs).toHaveLength(1);
    expect(review.costs[0]!.pairs).toBe(18);
  });

  it('says so instead of diffing when the run saw another version of a surface', async () => {
    const edited = { ...B, hash: 'sha256:edited' };
    const review = await overfitReview([A, edited]);
    expect(review.surfaceDiffs[0]!.unavailable).toContain('typed-v2 was edited since the run');
    const none = await overfitReview(null);
    expect(none.surfaceDiffs[0]!.unavailable).toContain('could not be loaded');
  });
});

describe('the PR comment and compare.html', () => {
  it('leads with the verdict, then the surface diff, and stays within GitHub’s comment limit', async () => {
    const review = await overfitReview();
    const markdown = renderComparePullRequest(review);
    const lines = markdown.split('\n');
    expect(lines[2]).toBe('### ⚠️ Likely overfit');
    expect(lines[4]).toMatch(/^Likely overfit: train task success improved/);
    expect(markdown.indexOf('### Surface diff')).toBeLessThan(markdown.indexOf('### Train'));
    expect(markdown).toContain('<del>support </del>');
    expect(markdown).toContain('### Flipped tasks: 9');

    // 5,000 flipped tasks with long names: cut to fit, with the count kept.
    const many = {
      ...review,
      flippedTotal: 5_000,
      flipped: Array.from({ length: 5_000 }, (_, index) => ({
        ...review.flipped[0]!,
        task: `task-${index}-${'x'.repeat(60)}`,
      })),
    };
    const big = renderComparePullRequest(many);
    expect(big.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(big).toContain('### Flipped tasks: 5000 (showing 15; all in compare.html)');
  });

  it('escapes model text in compare.html and shows the diff, verdicts and transcripts', async () => {
    const review = await overfitReview();
    review.flipped[0]!.pairs[0]!.b.final_text = '</details><script>alert(1)</script>';
    const html = await renderCompareHtml(review);
    for (const id of ['decision', 'surface', 'verdicts', 'flipped', 'confusion', 'cost'])
      expect(html).toContain(`id="${id}"`);
    expect(html).toContain('&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('<del>support </del>');
    expect(html).toContain('href="#tool-tickets-read_ticket"');
    expect(html).toContain('id="tool-tickets-read_ticket"');
    expect(html).not.toMatch(/<script[\s>]/);
  });

  it('writes the three files and appends the report to the job summary only when the variable is set', async () => {
    const review = await overfitReview();
    const dir = await mkdtemp(join(tmpdir(), 'toolmark-review-'));
    try {
      const paths = await writeCompareReports(join(dir, 'out'), review);
      expect(JSON.parse(await readFile(paths.json, 'utf8'))).toEqual(review.comparison);
      expect(await readFile(paths.markdown, 'utf8')).toBe(renderComparePullRequest(review));
      expect(await readFile(paths.html, 'utf8')).toMatch(/^<!doctype html>/);
      expect(await appendJobSummary(review, {})).toBeNull();
      const summary = join(dir, 'step-summary.md');
      expect(await appendJobSummary(review, { GITHUB_STEP_SUMMARY: summary })).toBe(summary);
      await appendJobSummary(review, { GITHUB_STEP_SUMMARY: summary });
      const text = await readFile(summary, 'utf8');
      expect(text.split('### ⚠️ Likely overfit').length).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
