import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CompareReview } from '../spec/index.ts';
import { renderComparePullRequest } from './compare-pr-markdown.ts';
import { renderCompareHtml } from './html/compare-page.ts';

/** Files `toolmark compare --out DIR` writes. */
export const COMPARE_FILES = { json: 'comparison.json', markdown: 'report.md', html: 'compare.html' } as const;

/** Write comparison.json, the PR-comment report.md and compare.html into `outDir`; returns their paths. */
export async function writeCompareReports(
  outDir: string,
  review: CompareReview,
): Promise<{ json: string; markdown: string; html: string }> {
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  const paths = {
    json: join(out, COMPARE_FILES.json),
    markdown: join(out, COMPARE_FILES.markdown),
    html: join(out, COMPARE_FILES.html),
  };
  await Promise.all([
    writeFile(paths.json, `${JSON.stringify(review.comparison, null, 2)}\n`),
    writeFile(paths.markdown, renderComparePullRequest(review)),
    writeFile(paths.html, await renderCompareHtml(review)),
  ]);
  return paths;
}

/**
 * Append the PR-comment report to the CI job summary (GitHub Actions'
 * `$GITHUB_STEP_SUMMARY`), when that variable names a file. Returns the
 * file written to, or null when the variable is unset.
 */
export async function appendJobSummary(
  review: CompareReview,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return null;
  await appendFile(file, `${renderComparePullRequest(review)}\n`);
  return file;
}
