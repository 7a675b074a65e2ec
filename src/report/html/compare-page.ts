import type { CompareReview, ComparedMetric, CompareSection, CostRow, Comparison } from '../../spec/index.ts';
import { moreTasksToDetect } from '../../stats/index.ts';
import { interval, pValue, value } from '../compare-markdown.ts';
import {
  DECISION_LABELS,
  decisionSentence,
  providerDisagreement,
  decisionTone,
  metricVerdict,
  signedInteger,
} from '../compare-wording.ts';
import { SYNTHETIC_BANNER } from '../headline.ts';
import { differencesSpec, toolTokensSpec } from './compare-charts.ts';
import { flippedHtml } from './compare-flipped.ts';
import { surfaceDiffHtml } from './compare-surface.ts';
import { htmlEscape as h } from './escape.ts';
import { renderChart } from './render-chart.ts';
import { COMPARE_CSS, REPORT_CSS } from './style.ts';

/**
 * compare.html: the revision review of `toolmark compare --out` —
 * decision, surface diff, verdicts, flipped tasks with both transcripts,
 * confusion delta, cost and latency. Self-contained: inline CSS, charts
 * rendered to SVG now, no script.
 */

function card(id: string, title: string, note: string, body: string): string {
  return `<section class="card" id="${id}"><h2>${h(title)}</h2>${note ? `<p class="note">${note}</p>` : ''}${body}</section>`;
}

const splitName = (split: string) => (split === 'heldout' ? 'Held-out' : split === 'train' ? 'Train' : 'All splits');

function verdictCell(metric: ComparedMetric): string {
  const tone = metric.verdict === 'better' ? 'pass' : metric.verdict === 'worse' ? 'fail' : 'neutral';
  return `<span class="badge ${tone}">${h(metricVerdict(metric, moreTasksToDetect(metric)))}</span>`;
}

function metricTable(section: CompareSection): string {
  const rows = section.metrics.map(
    (metric) =>
      `<tr><td>${h(metric.metric)}</td><td class="num">${metric.n}</td><td class="num">${h(value(metric, metric.a))}</td><td class="num">${h(value(metric, metric.b))}</td><td class="num">${h(interval(metric))}</td><td class="num">${h(pValue(metric))}</td><td class="num">${metric.binary ? (metric.mde === null ? '∞' : `${(metric.mde * 100).toFixed(1)} pp`) : '—'}</td><td>${verdictCell(metric)}</td></tr>`,
  );
  return `<div class="scroll"><table><thead><tr><th>metric</th><th class="num">n</th><th class="num">A</th><th class="num">B</th><th class="num">B − A [95% CI]</th><th class="num">McNemar p (b/c)</th><th class="num">MDE</th><th>verdict</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function kindTable(sections: readonly CompareSection[]): string {
  if (sections.length < 2) return '';
  const cells = (section: CompareSection, name: string) => {
    const metric = section.metrics.find((entry) => entry.metric === name)!;
    return `<td class="num">${h(`${value(metric, metric.a)} → ${value(metric, metric.b)}`)}</td><td class="num">${h(interval(metric))}</td><td class="num">${h(pValue(metric))}</td><td>${verdictCell(metric)}</td>`;
  };
  const rows = sections.map(
    (section) =>
      `<tr><td>${h(section.kind)}</td><td class="num">${section.pairs}</td>${cells(section, 'task_success')}${cells(section, 'selection_accuracy')}</tr>`,
  );
  return `<h4>By kind</h4><div class="scroll"><table><thead><tr><th rowspan="2">kind</th><th rowspan="2" class="num">pairs</th><th colspan="4">task success</th><th colspan="4">selection</th></tr><tr><th class="num">A → B</th><th class="num">B − A [95% CI]</th><th class="num">p (b/c)</th><th>verdict</th><th class="num">A → B</th><th class="num">B − A [95% CI]</th><th class="num">p (b/c)</th><th>verdict</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function verdicts(comparison: Comparison): string {
  const splits = comparison.sections.some((section) => section.split !== 'all') ? ['train', 'heldout'] : ['all'];
  return splits
    .map((split) => {
      const overall = comparison.sections.find((section) => section.split === split && section.kind === 'all');
      if (!overall) return `<h3>${splitName(split)}</h3><p class="note">No paired trials.</p>`;
      return `<h3>${splitName(split)}: ${overall.pairs} pairs</h3>${metricTable(overall)}${kindTable(comparison.sections.filter((section) => section.split === split && section.kind !== 'all'))}`;
    })
    .join('');
}

function providerTable(review: CompareReview): string {
  if (review.byProvider.length === 0) return '';
  const cell = (comparison: Comparison, split: string) => {
    const metric = comparison.sections
      .find((section) => section.split === split && section.kind === 'all')
      ?.metrics.find((entry) => entry.metric === 'task_success');
    if (!metric || metric.a === null) return '<td>—</td>';
    return `<td class="num">${h(`${value(metric, metric.a)} → ${value(metric, metric.b)}`)}<br><span class="muted">${h(interval(metric))}, p ${h(pValue(metric).split(' ')[0]!)}</span></td>`;
  };
  const rows = review.byProvider.map(
    (entry) =>
      `<tr><td class="mono">${h(entry.provider)}</td>${cell(entry.comparison, 'train')}${cell(entry.comparison, 'heldout')}<td><span class="decision-chip ${decisionTone(entry.decision.outcome)}">${h(DECISION_LABELS[entry.decision.outcome])}</span></td></tr>`,
  );
  return `<h3>Per provider</h3><p class="note">Each provider compared on its own paired trials: the pooled verdict above can hide one that got worse.</p><div class="scroll"><table><thead><tr><th>provider</th><th class="num">train task success</th><th class="num">held-out task success</th><th>decision</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function confusionHtml(review: CompareReview): string {
  const changed = review.confusion.filter(
    (entry) => entry.moved.length > 0 || entry.rows.some((row) => row.a !== row.b),
  );
  if (review.confusion.length === 0) return '<p class="note">No must-call or similar-tool pairs.</p>';
  const unchanged = review.confusion.length - changed.length;
  const blocks = changed.map((entry) => {
    const rows = entry.rows
      .map(
        (row) =>
          `<tr${row.chosen === entry.expected ? ' class="correct"' : ''}><td class="mono">${h(row.chosen)}</td><td class="num">${row.a}</td><td class="num">${row.b}</td><td class="num ${row.b === row.a ? '' : (row.chosen === entry.expected) === row.b > row.a ? 'ok' : 'bad'}">${signedInteger(row.b - row.a)}</td></tr>`,
      )
      .join('');
    const moved = entry.moved
      .map((move) => `<li><code>${h(move.from)}</code> → <code>${h(move.to)}</code>: ${move.count}</li>`)
      .join('');
    return `<div class="confusion"><h4>expected <code>${h(entry.expected)}</code></h4><div class="scroll"><table><thead><tr><th>chosen (first call)</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th></tr></thead><tbody>${rows}</tbody></table></div>${moved ? `<p class="muted">Pairs whose choice moved (A → B):</p><ul class="moves">${moved}</ul>` : ''}</div>`;
  });
  return `${blocks.length ? `<div class="confusions">${blocks.join('')}</div>` : ''}<p class="note">${unchanged} expected action(s) with the same choices on both sides${blocks.length ? '' : ': no choice moved'}.</p>`;
}

function costTable(rows: readonly CostRow[]): string {
  const number = (value: number, digits = 0) =>
    value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const pair = (values: { a: number; b: number }, digits = 0, better: 'lower' | null = 'lower') => {
    const delta = values.b - values.a;
    const tone = better === null || Math.abs(delta) < 1e-9 ? '' : delta < 0 ? 'ok' : 'bad';
    return `<td class="num">${number(values.a, digits)} → ${number(values.b, digits)} <span class="${tone}">(${delta >= 0 ? '+' : '−'}${number(Math.abs(delta), digits)})</span></td>`;
  };
  const body = rows.map(
    (row) =>
      `<tr><td class="mono">${h(row.provider)}</td><td class="num">${row.pairs}</td>${pair(row.input_tokens, 1)}${pair(row.output_tokens, 1)}${pair(row.latency_p50)}${pair(row.latency_p95)}${pair(row.schema_tokens)}${pair(row.schema_bytes)}${row.cost_usd ? pair(row.cost_usd, 4) : '<td class="num muted">no price</td>'}</tr>`,
  );
  return `<div class="scroll"><table><thead><tr><th>provider</th><th class="num">pairs</th><th class="num">input tokens / trial</th><th class="num">output tokens / trial</th><th class="num">latency p50 ms</th><th class="num">latency p95 ms</th><th class="num">schema tokens</th><th class="num">schema bytes</th><th class="num">cost USD (total)</th></tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

function sideMeta(name: string, side: Comparison['a']): string {
  const surface =
    side.surface ?? (side.surfaces.length === 1 ? side.surfaces[0]! : `all surfaces (${side.surfaces.join(', ')})`);
  return `<span><strong>${name}</strong> <code>${h(surface)}</code> · run ${h(side.run_id)} · ${h(side.providers.join(', '))}</span>`;
}

/** Render compare.html for a review. */
export async function renderCompareHtml(review: CompareReview): Promise<string> {
  const { comparison, decision } = review;
  const tokensSpec = toolTokensSpec(review);
  const [differences, tokens] = await Promise.all([
    comparison.sections.length ? renderChart(differencesSpec(review)) : Promise.resolve(''),
    tokensSpec ? renderChart(tokensSpec) : Promise.resolve(''),
  ]);
  const surfaces = { a: comparison.a.surface ?? comparison.a.run_id, b: comparison.b.surface ?? comparison.b.run_id };
  const tone = decisionTone(decision.outcome);
  const synthetic = comparison.a.synthetic || comparison.b.synthetic;
  const banner = synthetic
    ? `<div class="banner" role="note"><strong>⚠ ${h(SYNTHETIC_BANNER.split(':')[0]!)}:</strong>${h(SYNTHETIC_BANNER.slice(SYNTHETIC_BANNER.indexOf(':') + 1))}</div>`
    : '';
  const more =
    review.flippedTotal > review.flipped.length
      ? ` Showing ${review.flipped.length} of ${review.flippedTotal}; every task is in <code>comparison.json</code>.`
      : '';
  const { pairing } = comparison;
  const notes = review.notes.map((note) => `<p class="note warn-text">${h(note)}</p>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolmark compare · ${h(surfaces.a)} → ${h(surfaces.b)}</title>
<style>${REPORT_CSS}${COMPARE_CSS}</style></head>
<body>
<header class="top"><h1>toolmark compare · <code>${h(surfaces.a)}</code> → <code>${h(surfaces.b)}</code></h1><div class="meta">${sideMeta('A', comparison.a)}${sideMeta('B', comparison.b)}<span>${pairing.pairs} pairs by ${h(pairing.key.join(', '))}; ${pairing.unpaired_a} only in A, ${pairing.unpaired_b} only in B, ${pairing.errored} dropped (errored)</span></div></header>
<nav class="toc"><a href="#decision">Decision</a><a href="#surface">Surface diff</a><a href="#verdicts">Verdicts</a><a href="#flipped">Flipped tasks</a><a href="#confusion">Confusion delta</a><a href="#cost">Cost and latency</a></nav>
<main>
${banner}
<section class="card decision ${tone}" id="decision"><div class="decision-label">${h(DECISION_LABELS[decision.outcome])}</div><p class="decision-text">${h(decisionSentence(decision, comparison))}</p>${providerDisagreement(review) ? `<p class="decision-text"><strong>${h(providerDisagreement(review)!)}</strong></p>` : ''}
${differences ? `<div class="chart fit">${differences}</div><p class="note">Paired differences B − A with bootstrap 95% intervals. Green: better, red: worse (interval excludes 0 and McNemar p &lt; 0.05), grey: no detectable change.</p>` : ''}
${providerTable(review)}${notes}</section>
${card('surface', 'Surface diff: what the model sees', 'Tools matched by action (or by registry tool for a multiplexed tool). Deletions are struck through, additions underlined. Tokens: o200k over the compact JSON of each tool definition.', `${review.surfaceDiffs.map(surfaceDiffHtml).join('') || '<p class="note">No surfaces to diff.</p>'}${tokens ? `<div class="chart fit">${tokens}</div>` : ''}`)}
${card('verdicts', 'Verdicts per metric and kind', 'better/worse only when the 95% paired-bootstrap interval excludes 0 and, for pass/fail metrics, McNemar p &lt; 0.05. MDE: the smallest difference these pairs detect (α 0.05, power 0.8); "would need N more tasks" solves the same test for the observed difference.', verdicts(comparison))}
${card('flipped', `Flipped tasks: ${review.flippedTotal}`, `Tasks whose success count changed between A and B, worse first. Each names the changed tools it expects, is distracted by or called, and shows discordant pairs (one side passed, the other failed) side by side.${more}`, review.flipped.map((task, index) => flippedHtml(task, index, surfaces)).join('') || '<p class="note">No task changed its success count.</p>')}
${card('confusion', 'Confusion delta', 'Must-call and similar-tool pairs: for each expected action, what the first call chose on A and on B, and which pairs moved from one choice to another.', confusionHtml(review))}
${card('cost', 'Cost and latency', 'Means per trial over the paired trials (latency: percentiles; cost: total, from the price table). Lower is green.', costTable(review.costs))}
</main>
<footer>Generated by toolmark compare. Self-contained: no network needed to view. Figures: <code>comparison.json</code>; PR comment: <code>report.md</code>.</footer>
</body></html>
`;
}
