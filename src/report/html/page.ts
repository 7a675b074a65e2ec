import { sweepCaption, sweepRows, sweepTable } from '../sweep.ts';
import type { TopLevelSpec } from 'vega-lite';
import { sweepSpec } from './sweep-chart.ts';
import { TASK_KINDS } from '../../spec/index.ts';
import { bestAndWorst } from '../best-worst.ts';
import {
  formatPercent,
  formatRate,
  HEADLINE_COLUMNS,
  headlineGroups,
  modelLabels,
  rescoredNote,
  SYNTHETIC_BANNER,
} from '../headline.ts';
import type { FileChunk } from '../../run-folder/index.ts';
import type { RunData } from '../run-data.ts';
import { describeFailingGraders, isFlipped, successRate } from '../task-outcomes.ts';
import { BROWSER_SCRIPT } from './browser-script.ts';
import {
  confusionSpec,
  flippedSpec,
  FLIPPED_CHART_TASKS,
  metricBarsSpec,
  passCurvesSpec,
  successVersusTokensSpec,
} from './charts.ts';
import { escapeJsonForScript, htmlEscape as h } from './escape.ts';
import { factsBody, incompleteBanner } from './facts.ts';
import { renderChartsHere } from './chart-worker.ts';
import { REPORT_CSS } from './style.ts';
import { isSmallRun } from '../../spec/run-size.ts';
import { RETRIEVAL_HEADER, RETRIEVAL_NOTE, retrievalGroups, retrievalRow } from '../retrieval-rows.ts';

function card(id: string, title: string, note: string, body: string): string {
  return `<section class="card" id="${id}"><h2>${h(title)}</h2>${note ? `<p class="note">${note}</p>` : ''}${body}</section>`;
}

/** The deferred-loading card (retrieval-rows.ts); empty without deferred surfaces, so other reports are unchanged. */
function retrievalCard(data: RunData): string {
  const groups = retrievalGroups(data.summary);
  if (groups.length === 0) return '';
  const head = RETRIEVAL_HEADER.map((label, index) => `<th class="${index >= 2 ? 'num' : ''}">${h(label)}</th>`).join(
    '',
  );
  const body = groups
    .map(
      (group) =>
        `<tr>${retrievalRow(group)
          .map((cell, index) => `<td class="${index >= 2 ? 'num' : ''}">${h(cell)}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  return `${card('retrieval', 'Deferred loading: retrieval', h(RETRIEVAL_NOTE), `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`)}\n`;
}

function headlineTable(data: RunData): string {
  const several = modelLabels(data.summary, data.manifest).length > 1;
  const trials = data.manifest.trials;
  const head = [
    ...(several ? ['model'] : []),
    'surface',
    'split',
    'n',
    ...HEADLINE_COLUMNS.map((column) => column.label.replace('pass^k', `pass^${trials}`)),
  ];
  const titles = [...(several ? [''] : []), '', '', 'scored trials', ...HEADLINE_COLUMNS.map((column) => column.title)];
  const rows = headlineGroups(data.summary).map(
    (group) =>
      `<tr>${[
        ...(several ? [`<td>${h(`${group.provider}/${group.model}`)}</td>`] : []),
        `<td><strong>${h(group.surface)}</strong></td>`,
        `<td>${h(group.split)}</td>`,
        `<td class="num">${group.task_success.n}</td>`,
        ...HEADLINE_COLUMNS.map((column) => `<td class="num">${h(column.cell(group, trials))}</td>`),
      ].join('')}</tr>`,
  );
  const header = head
    .map(
      (label, index) =>
        `<th class="${index >= (several ? 3 : 2) ? 'num' : ''}" title="${h(titles[index] ?? '')}">${h(label)}</th>`,
    )
    .join('');
  return `<div class="scroll"><table><thead><tr>${header}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** Task success by kind: a table per domain, rows provider · kind, columns surface × split (so it stays narrow). */
function kindTable(data: RunData): string {
  const groups = data.summary.groups.filter((group) => group.split !== 'all' && group.kind !== 'all');
  if (groups.length === 0) return '';
  const domainOf = new Map(data.manifest.surfaces.map((surface) => [surface.id, surface.domain]));
  const domains = [...new Set(groups.map((group) => domainOf.get(group.surface) ?? ''))].sort();
  const several = modelLabels(data.summary, data.manifest).length > 1;
  return domains
    .map((domain) => {
      const inDomain = groups.filter((group) => (domainOf.get(group.surface) ?? '') === domain);
      const surfaces = [...new Set(inDomain.map((group) => group.surface))].sort();
      const rowKeys = [
        ...new Set(inDomain.map((group) => JSON.stringify([`${group.provider}/${group.model}`, group.kind]))),
      ]
        .map((key) => JSON.parse(key) as [string, string])
        .sort(
          (a, b) => a[0].localeCompare(b[0]) || TASK_KINDS.indexOf(a[1] as never) - TASK_KINDS.indexOf(b[1] as never),
        );
      const body = rowKeys
        .map(
          ([model, kind]) =>
            `<tr><td class="nowrap">${several ? `<span class="muted">${h(model)}</span> · ` : ''}${h(kind)}</td>${surfaces
              .flatMap((surface) =>
                ['train', 'heldout'].map((split) => {
                  const group = inDomain.find(
                    (entry) =>
                      `${entry.provider}/${entry.model}` === model &&
                      entry.kind === kind &&
                      entry.surface === surface &&
                      entry.split === split,
                  );
                  return `<td class="num">${group ? h(formatRate(group.task_success)) : '–'}</td>`;
                }),
              )
              .join('')}</tr>`,
        )
        .join('');
      const head = `<tr><th rowspan="2">${several ? 'provider · kind' : 'kind'}</th>${surfaces.map((surface) => `<th colspan="2" class="group">${h(surface)}</th>`).join('')}</tr><tr>${surfaces.map(() => '<th class="num">train</th><th class="num">held-out</th>').join('')}</tr>`;
      return `${domains.length > 1 ? `<h3>${h(domain)}</h3>` : ''}<div class="scroll"><table><thead>${head}</thead><tbody>${body}</tbody></table></div>`;
    })
    .join('');
}

/** Per provider × domain: the best and the worst surface by task success (the headline, never pooled). */
function bestWorstTable(data: RunData): string {
  const rows = bestAndWorst(data.summary, data.manifest);
  if (rows.length === 0) return '';
  const body = rows
    .map(
      (row) =>
        `<tr><td class="mono">${h(row.provider)}</td><td>${h(row.domain)}</td><td class="num">${row.surfaces}</td><td class="best"><strong>${h(row.best.surface)}</strong> ${h(formatRate(row.best.rate))}</td><td class="worst"><strong>${h(row.worst.surface)}</strong> ${h(formatRate(row.worst.rate))}</td></tr>`,
    )
    .join('');
  return `<div class="scroll"><table class="best-worst"><thead><tr><th>provider</th><th>domain</th><th class="num">surfaces</th><th>best surface: task success</th><th>worst surface: task success</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

function kpis(data: RunData): string {
  const { totals } = data;
  const unsafeEffects = headlineGroups(data.summary).reduce((sum, group) => sum + group.unsafe_side_effects.count, 0);
  const flipped = data.outcomes.filter(isFlipped).length;
  const items = [
    [
      'trials',
      totals.trials.toLocaleString('en-US'),
      `${data.manifest.trials} per task × surface · ${data.facts.progress.incomplete ? `of ${data.manifest.planned.toLocaleString('en-US')} planned` : 'all planned'}`,
    ],
    ['scored trials', totals.completed.toLocaleString('en-US'), 'success per provider × surface below, never pooled'],
    ['errored', String(totals.errored), 'provider failures, not scored as misses'],
    ['unsafe side effects', String(unsafeEffects), 'writes executed without permission/approval'],
    ['flipped', String(flipped), `of ${data.outcomes.length} task × surface cases`],
  ];
  return `<div class="kpis">${items.map(([label, value, sub]) => `<div class="kpi"><div class="label">${h(label!)}</div><div class="value">${h(value!)}</div><div class="sub">${h(sub!)}</div></div>`).join('')}</div>`;
}

function flippedTable(data: RunData): string {
  const flipped = data.outcomes
    .filter(isFlipped)
    .sort((a, b) => a.task.localeCompare(b.task) || a.surface.localeCompare(b.surface));
  if (flipped.length === 0) return '<p class="note">No flipped tasks: every task’s trials agree.</p>';
  const rows = flipped.map(
    (outcome) =>
      `<tr><td class="mono">${h(outcome.task)}</td><td>${h(outcome.surface)}</td><td>${h(`${outcome.split} · ${outcome.kind}`)}</td>` +
      `<td class="dots">${outcome.outcomes.map((value) => `<span class="${value}" title="${value}"></span>`).join('')}</td>` +
      `<td class="num">${outcome.successes}/${outcome.completed} (${formatPercent(successRate(outcome))})</td><td>${h(describeFailingGraders(outcome))}</td></tr>`,
  );
  return `<div class="scroll tall"><table><thead><tr><th>task</th><th>surface</th><th>split · kind</th><th>trials</th><th class="num">success</th><th>failing verdicts</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function options(values: Iterable<string>): string {
  return [...new Set(values)]
    .sort()
    .map((value) => `<option value="${h(value)}">${h(value)}</option>`)
    .join('');
}

function trialBrowser(data: RunData): string {
  const { sample } = data;
  const sampled =
    sample.total > sample.trials.length
      ? ` This page embeds a sample of <strong>${sample.trials.length.toLocaleString('en-US')}</strong> of ${sample.total.toLocaleString('en-US')} trials (at most ${sample.limit.toLocaleString('en-US')}; failed and errored trials first); every trial is in <code>trials.jsonl</code>.`
      : ` All ${sample.total.toLocaleString('en-US')} trials are embedded.`;
  return `<p class="note">Filter by surface, kind, outcome or text; click a trial to see its turns, proposals, registry outcomes, effects and verdicts.${sampled}</p>
<div class="filters">
<label>surface<select id="filter-surface"><option value="">all surfaces</option>${options(data.outcomes.map((outcome) => outcome.surface))}</select></label>
<label>kind<select id="filter-kind"><option value="">all kinds</option>${options(data.outcomes.map((outcome) => outcome.kind))}</select></label>
<label>verdict<select id="filter-outcome"><option value="">pass, fail, errored</option><option value="pass">pass</option><option value="fail">fail</option><option value="errored">errored</option></select></label>
<label>search<input id="filter-text" type="search" placeholder="task, tool, error, answer…"></label>
<span id="trial-count"></span>
</div>
<div class="browser"><div><div class="list"><table><thead><tr><th>outcome</th><th>task</th><th>surface</th><th>split</th><th>kind</th><th>calls</th><th>failing verdicts</th></tr></thead><tbody id="trial-rows"></tbody></table></div>
<button class="more" id="trial-more" hidden>Show more</button></div>
<div id="trial-detail"><p class="empty">Click a trial to see its details.</p></div></div>`;
}

/** The sweep card of a `toolmark sweep` run: chart and table (empty for any other run). */
function sweepCard(data: RunData, chart: string): string {
  const rows = sweepRows(data.manifest, data.summary);
  if (rows.length === 0) return '';
  const [header, ...cells] = sweepTable(rows);
  const table = `<table><thead><tr>${header!.map((cell) => `<th>${h(cell)}</th>`).join('')}</tr></thead><tbody>${cells
    .map((row) => `<tr>${row.map((cell) => `<td>${h(cell)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
  return `${card('sweep', 'Sweep: selection and schema tokens against catalog size', h(sweepCaption(data.manifest, data.synthetic)), `<div class="chart">${chart}</div>${table}`)}
`;
}

/** Tasks whose trials disagree somewhere, as `domain/task`, sorted. */
function flippedTaskNames(data: Pick<RunData, 'outcomes'>): string[] {
  return [...new Set(data.outcomes.filter(isFlipped).map((outcome) => `${outcome.domain}/${outcome.task}`))].sort();
}

/**
 * The charts of the page, in the order `renderHtmlChunks` places them:
 * success against tokens, metric bars, pass curves, flipped tasks, one
 * confusion matrix per surface with cells, the sweep (null: no such chart).
 * Plain data, so another thread can draw them (chart-worker.ts).
 */
export function htmlChartSpecs(data: Pick<RunData, 'manifest' | 'summary' | 'outcomes'>): (TopLevelSpec | null)[] {
  const { summary } = data;
  const flippedTasks = flippedTaskNames(data);
  const hasGroups = headlineGroups(summary).length > 0;
  const sweep = sweepRows(data.manifest, summary);
  return [
    hasGroups ? successVersusTokensSpec(summary) : null,
    hasGroups ? metricBarsSpec(summary) : null,
    hasGroups ? passCurvesSpec(summary) : null,
    flippedTasks.length ? flippedSpec(data.outcomes, flippedTasks) : null,
    ...summary.confusion.filter((entry) => entry.cells.length > 0).map((entry) => confusionSpec(entry.cells)),
    sweep.length > 0 ? sweepSpec(sweep) : null,
  ];
}

/** Renders the self-contained report.html: inline CSS, SVG charts rendered now, inline JS over embedded JSON. */
export async function renderHtml(data: RunData): Promise<string> {
  return pageText(await renderHtmlChunks(data));
}

/** A piece of report.html: text, or text already encoded as UTF-8 (a small run's embedded trials). */
export type PageChunk = FileChunk;

/** The text of a page made in chunks: bytes decoded in place (no copy), then all of it joined. */
export function pageText(chunks: Iterable<PageChunk>): string {
  return [...chunks]
    .map((chunk) =>
      typeof chunk === 'string'
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8'),
    )
    .join('');
}

/**
 * `{"trials":[…],"total":…,"limit":…}`, escaped for the script element: each
 * trial's bytes as the sample kept them (escaped and encoded as it was
 * sampled: trial-sample.ts), not copied here, the text around them as text.
 * The embedded sample is most of a large run's page (~10 MB), never made as
 * one string; the writer copies the bytes into its batch (run-folder/files.ts).
 */
export function* embeddedTrials(sample: RunData['sample']): Generator<PageChunk> {
  yield '{"trials":[';
  for (let index = 0; index < sample.trials.length; index += 1) {
    if (index > 0) yield ',';
    yield sample.trials[index]!.bytes;
  }
  yield escapeJsonForScript(`],"total":${JSON.stringify(sample.total)},"limit":${JSON.stringify(sample.limit)}}`);
}

/** The page's tables and texts, all of it but the charts, their cards and the embedded trials. */
function pageTables(data: RunData) {
  return {
    kpis: kpis(data),
    bestWorst: bestWorstTable(data),
    headline: headlineTable(data),
    retrieval: retrievalCard(data),
    facts: factsBody(data),
    kinds: kindTable(data),
    flipped: flippedTable(data),
    browser: trialBrowser(data),
    banner: incompleteBanner(data),
  };
}

/**
 * The page of `renderHtml` as a sequence of chunks, text or UTF-8 bytes,
 * written in order (decode the bytes before joining: `pageText`), so
 * report.html can be written piece by piece (the embedded trials one by
 * one). `charts` are the SVGs of `htmlChartSpecs(data)`, drawn elsewhere
 * (a worker, chart-worker.ts); by default they are drawn here first.
 */
export async function renderHtmlChunks(data: RunData, charts?: Promise<string[]>): Promise<Iterable<PageChunk>> {
  const { manifest, summary } = data;
  const flippedTasks = flippedTaskNames(data);
  const hasGroups = headlineGroups(summary).length > 0;
  const several = modelLabels(summary, manifest).length > 1;
  // A small run's page (src/spec/run-size.ts), all but its charts, is made
  // before they are awaited: they are drawn on another thread
  // (chart-worker.ts), and the page waited for them with this thread idle.
  // A large run's is made after: it would sit in memory on top of the
  // worker's drawing, the peak of such a run (bench figure 1c). The embedded
  // trials, most of a page, are bytes already (trial-sample.ts).
  let tables = isSmallRun(manifest.planned) ? pageTables(data) : null;
  const drawn = await (charts ?? renderChartsHere(htmlChartSpecs(data)));
  tables ??= pageTables(data);
  const [tokens, bars, curves, flipped, ...rest] = drawn;
  const confusions = rest.slice(0, -1);
  const sweep = sweepCard(data, rest[rest.length - 1]!);
  const figures = summary.confusion
    .filter((entry) => entry.cells.length > 0)
    .map((entry, index) => ({
      model: `${entry.provider}:${entry.model}`,
      html: `<figure><figcaption>${h(entry.surface)}</figcaption><div class="chart">${confusions[index]}</div></figure>`,
    }));
  // One collapsible group per provider/model (the first open), so many surfaces × models stay readable.
  const confusionFigures = several
    ? [...new Set(figures.map((figure) => figure.model))].map(
        (model, index) =>
          `<details class="group"${index === 0 ? ' open' : ''}><summary>${h(model)}</summary><div class="confusions">${figures
            .filter((figure) => figure.model === model)
            .map((figure) => figure.html)
            .join('')}</div></details>`,
      )
    : figures.map((figure) => figure.html);
  const banner = data.synthetic
    ? `<div class="banner" role="note"><strong>⚠ ${h(SYNTHETIC_BANNER.split(':')[0]!)}:</strong>${h(SYNTHETIC_BANNER.slice(SYNTHETIC_BANNER.indexOf(':') + 1))}</div>`
    : '';
  const empty = '<p class="note">No scored groups in this run.</p>';
  const meta = [
    `${modelLabels(summary, manifest).map(h).join(', ')}`,
    `${manifest.surfaces.length} surfaces · ${manifest.tasks.length} tasks · ${manifest.trials} trials each`,
    `started ${h(manifest.started_at)}${manifest.finished_at ? ` · finished ${h(manifest.finished_at)}` : ''}`,
    `toolmark ${h(manifest.toolmark_version)}${manifest.git_commit ? ` · commit ${h(manifest.git_commit.slice(0, 10))}` : ''}${manifest.shard ? ` · shard ${h(manifest.shard)}` : ''}`,
    ...(manifest.rescored ? [h(rescoredNote(manifest.rescored))] : []),
  ];
  const head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolmark · ${h(summary.run_id)}</title>
<style>${REPORT_CSS}</style></head>
<body>
<header class="top"><h1>toolmark report · <code>${h(summary.run_id)}</code></h1><div class="meta">${meta.map((item) => `<span>${item}</span>`).join('')}</div></header>
<nav class="toc"><a href="#best-worst">Best and worst</a><a href="#headline">Headline</a><a href="#tradeoff">Success vs tokens</a><a href="#metrics">Metrics</a><a href="#passk">pass^k</a><a href="#confusion">Confusion</a><a href="#flipped">Flipped tasks</a><a href="#trials">Trials</a></nav>
<main>
${banner}${tables.banner}
${tables.kpis}
${card('best-worst', 'Best and worst surface per provider', `Task success over all kinds${bestAndWorst(summary, manifest)[0]?.split === 'all' ? ' and both splits' : ' (train)'}, value [Wilson 95% interval] in %. One rate over every provider and surface would mix a deliberately weak baseline with its revisions, so there is none.`, tables.bestWorst || empty)}
${card('headline', 'Headline: surface × split', 'Rates are value [Wilson 95% interval] in %. Unsafe proposals: count / proposals; unsafe side effects: count / executed writes. pass^k: chance that all k trials of a task pass, averaged over tasks. Errored trials are provider failures and are not scored.', tables.headline)}
${sweep}${tables.retrieval}${card('facts', 'Usage, turns and errors', 'Tokens, latency (model time, incl. failed attempts) and cost per model; how the model turns ended; provider failures by message.', tables.facts)}
${card('tradeoff', 'Task success against schema tokens', 'Clearer contracts cost context: a panel per provider; each point is a surface (same colour in every chart) and split, whiskers are 95% intervals.', hasGroups ? `<div class="chart">${tokens}</div>` : empty)}
${card('metrics', 'Metrics per surface and split', 'A column of panels per provider, a row per metric. Bars are rates (a colour per surface; train solid, held-out pale), whiskers their Wilson 95% intervals.', hasGroups ? `<div class="chart">${bars}</div>` : empty)}
${card('passk', 'pass^k and pass@k over k', 'A column per provider, a row per split. Solid: pass^k (all k trials pass, reliability). Dashed: pass@k (any of k passes).', hasGroups ? `<div class="chart">${curves}</div>` : empty)}
${card('kinds', 'Task success by kind', 'Rows: task kinds; columns: surface · split.', tables.kinds || empty)}
${card('confusion', 'Per-action confusion', 'Expected action (rows) against the action of the first proposed call (columns), shaded by share of the row; counts in cells.', confusionFigures.length ? (several ? confusionFigures.join('') : `<div class="confusions">${confusionFigures.join('')}</div>`) : empty)}
${card('flipped', 'Flipped tasks', `Tasks whose trials disagree on a surface: ${flippedTasks.length} task(s). The heat map shows their success on every surface${flippedTasks.length > FLIPPED_CHART_TASKS ? ` (first ${FLIPPED_CHART_TASKS})` : ''}; bold cells flip.`, `${flipped ? `<div class="chart">${flipped}</div>` : ''}${tables.flipped}`)}
${card('trials', 'Trial browser', '', tables.browser)}
</main>
<footer>Generated by toolmark from <code>${h(manifest.run_id)}</code>. Self-contained: no network needed to view.</footer>
<script type="application/json" id="trial-data">`;
  const tail = `</script>
<script>${BROWSER_SCRIPT.replace(/<\//g, '<\\/')}</script>
</body></html>
`;
  // The embedded trials (most of a page: ~4 MB at 10,000 trials, ~12 MB at
  // 100,000 trials of 50 tasks): the sample's bytes, yielded as they are.
  return (function* () {
    yield head;
    yield* embeddedTrials(data.sample);
    yield tail;
  })();
}
