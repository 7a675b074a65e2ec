/**
 * Reports of a run folder (SPEC §3): report.md for a PR comment, a
 * self-contained report.html with charts and a trial browser, and junit.xml
 * for CI. All three come from one streaming pass over trials.jsonl plus the
 * run's summary.json and manifest.json.
 */
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { GateConfig } from '../spec/index.ts';
import { renderHtmlChunks } from './html/page.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { collectRun, type RunData } from './run-data.ts';

export { collectRun, createRunCollector, isSynthetic, type RunCollector, type RunData } from './run-data.ts';
export { errorLines, incompleteNote, turnLine, usageLines, type RunFacts } from './run-facts.ts';
export { renderMarkdown } from './markdown.ts';
export { renderJunit, xmlEscape } from './junit.ts';
export { renderHtml, renderHtmlChunks } from './html/page.ts';
export { DEFAULT_SAMPLE_LIMIT } from './trial-sample.ts';
export { sweepCaption, sweepRows, sweepTable, type SweepRow } from './sweep.ts';

/** File names the reports are written under, inside the run folder. */
export const REPORT_FILES = { markdown: 'report.md', html: 'report.html', junit: 'junit.xml' } as const;

/**
 * Renders report.md, report.html and junit.xml into `runDir` and returns
 * their paths. Throws ConfigError when `runDir` is not a readable run folder.
 * `sampleLimit` caps the trials embedded in the HTML trial browser.
 */
export async function renderRunReports(
  runDir: string,
  options: { gate: GateConfig; sampleLimit?: number },
): Promise<{ markdown: string; html: string; junit: string }> {
  return writeReports(await collectRun(runDir, { sampleLimit: options.sampleLimit }), options.gate);
}

/**
 * Renders the three reports of collected run data into its run folder (for
 * callers that collected the trials themselves, see `createRunCollector`).
 */
export async function writeReports(
  data: RunData,
  gate: GateConfig,
): Promise<{ markdown: string; html: string; junit: string }> {
  const { runDir } = data;
  const paths = {
    markdown: join(runDir, REPORT_FILES.markdown),
    html: join(runDir, REPORT_FILES.html),
    junit: join(runDir, REPORT_FILES.junit),
  };
  const html = await renderHtmlChunks(data);
  await Promise.all([
    writeFile(paths.markdown, renderMarkdown(data)),
    writeChunks(paths.html, html),
    writeFile(paths.junit, renderJunit(data, gate)),
  ]);
  return paths;
}

/** Bytes gathered before each write: few writes, and never the whole page in memory at once. */
const WRITE_BATCH = 1 << 20;

/** Write a file from a sequence of strings, in batches of about WRITE_BATCH characters. */
async function writeChunks(file: string, chunks: Iterable<string>): Promise<void> {
  const handle = await open(file, 'w');
  try {
    let batch: string[] = [];
    let size = 0;
    for (const chunk of chunks) {
      batch.push(chunk);
      size += chunk.length;
      if (size < WRITE_BATCH) continue;
      await writeAll(handle, batch.join(''));
      batch = [];
      size = 0;
    }
    if (batch.length > 0) await writeAll(handle, batch.join(''));
  } finally {
    await handle.close();
  }
}

async function writeAll(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length;)
    offset += (await handle.write(bytes, offset, bytes.length - offset)).bytesWritten;
}
export { writeCompareReports, appendJobSummary, COMPARE_FILES } from './compare-reports.ts';
export { renderComparePullRequest, COMMENT_LIMIT } from './compare-pr-markdown.ts';
export { renderCompareHtml } from './html/compare-page.ts';
