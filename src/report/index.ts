/**
 * Reports of a run folder (SPEC §3): report.md for a PR comment, a
 * self-contained report.html with charts and a trial browser, and junit.xml
 * for CI. All three come from one streaming pass over trials.jsonl plus the
 * run's summary.json and manifest.json.
 */
import { join } from 'node:path';
import { REPORT_FILES, writeFileAtomic, type RunFileWriter } from '../run-folder/index.ts';
import type { GateConfig } from '../spec/index.ts';
import { renderChartsHere, startChartWorker, type ChartRenderer } from './html/chart-worker.ts';
import { htmlChartSpecs, renderHtmlChunks } from './html/page.ts';
import { junitChunks } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { collectRun, type RunData } from './run-data.ts';

export { collectRun, createRunCollector, isSynthetic, type RunCollector, type RunData } from './run-data.ts';
export { errorLines, incompleteNote, turnLine, usageLines, type RunFacts } from './run-facts.ts';
export { renderMarkdown } from './markdown.ts';
export { renderJunit, xmlEscape } from './junit.ts';
export { pageText, renderHtml, renderHtmlChunks, type PageChunk } from './html/page.ts';
export { drawAhead, startChartWorker, type ChartRenderer, type ChartWorker } from './html/chart-worker.ts';
export { htmlChartSpecs } from './html/page.ts';
export { runShapedChartSpecs, warmUpChartSpecs, warmUpTailSpecs } from './html/warm-up-specs.ts';
export { DEFAULT_SAMPLE_LIMIT } from './trial-sample.ts';
export { sweepCaption, sweepRows, sweepTable, type SweepRow } from './sweep.ts';

/** File names the reports are written under, inside the run folder (named by src/run-folder). */
export { REPORT_FILES };

/**
 * Renders report.md, report.html and junit.xml into `runDir` and returns
 * their paths. Throws ConfigError when `runDir` is not a readable run folder.
 * `sampleLimit` caps the trials embedded in the HTML trial browser.
 */
export async function renderRunReports(
  runDir: string,
  options: { gate: GateConfig; sampleLimit?: number },
): Promise<{ markdown: string; html: string; junit: string }> {
  // Started first: the worker imports Vega while this thread reads the trials.
  const charts = startChartWorker();
  try {
    return await writeReports(
      await collectRun(runDir, { sampleLimit: options.sampleLimit }),
      options.gate,
      writeFileAtomic,
      charts.render,
    );
  } finally {
    charts.stop();
  }
}

/**
 * Renders the three reports of collected run data into its run folder (for
 * callers that collected the trials themselves, see `createRunCollector`).
 * Each is written whole under a temporary name and renamed (`writeFileAtomic`),
 * or handed to `write` (a transaction stages them: src/run-folder/transaction.ts),
 * so a kill never leaves half a report. `charts` draws the page's charts
 * (default: here, one after another; `startChartWorker().render`: on the
 * second core, while this thread writes report.md and junit.xml).
 */
export async function writeReports(
  data: RunData,
  gate: GateConfig,
  write: RunFileWriter = writeFileAtomic,
  charts: ChartRenderer = renderChartsHere,
): Promise<{ markdown: string; html: string; junit: string }> {
  const { runDir } = data;
  const paths = {
    markdown: join(runDir, REPORT_FILES.markdown),
    html: join(runDir, REPORT_FILES.html),
    junit: join(runDir, REPORT_FILES.junit),
  };
  const drawn = charts(htmlChartSpecs(data));
  // Awaited once the other two reports are written; a failure is thrown there (not an unhandled rejection meanwhile).
  drawn.catch(() => {});
  write(paths.markdown, renderMarkdown(data));
  write(paths.junit, junitChunks(data, gate));
  write(paths.html, await renderHtmlChunks(data, drawn));
  return paths;
}

export { writeCompareReports, appendJobSummary, COMPARE_FILES } from './compare-reports.ts';
export { renderComparePullRequest, COMMENT_LIMIT } from './compare-pr-markdown.ts';
export { renderCompareHtml } from './html/compare-page.ts';
