/**
 * Opens the HTML report of a fixture run in headless Chromium (the npm-installed
 * one, see test/helpers/browser.ts) and checks what a person would: charts
 * drawn, filters narrowing the trial list, a trial opening, and a screenshot
 * saved under results/. Fails — never skips — without Chromium.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRunReports } from '../../src/report/index.ts';
import { GateConfig } from '../../src/spec/index.ts';
import { launchBrowser, type LaunchedBrowser } from '../helpers/browser.ts';
import { writeFixtureRun } from './fixture-run.ts';

const SCREENSHOT = resolve('results/report-screenshot.png');

let workDir: string;
let browser: LaunchedBrowser;
let page: Page;
const pageErrors: string[] = [];
const requests: string[] = [];
let expected: { total: number; failed: number; typedErrored: number; wideMustCall: number };

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-browser-'));
  const runDir = join(workDir, 'run');
  const { records } = await writeFixtureRun(runDir, { synthetic: true });
  expected = {
    total: records.length,
    failed: records.filter((record) => record.status === 'completed' && record.success !== true).length,
    typedErrored: records.filter((record) => record.surface === 'typed-v2' && record.status === 'errored').length,
    wideMustCall: records.filter((record) => record.surface === 'wide-v1' && record.kind === 'must-call').length,
  };
  const { html } = await renderRunReports(runDir, { gate: GateConfig.parse({}) });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(html).href);
}, 600_000); // the first launch unpacks Chromium (~190 MB)

afterAll(async () => {
  await browser?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const visibleRows = () => page.locator('#trial-rows tr').count();

describe('report.html in a browser', () => {
  it('renders every chart as SVG with marks, and loads nothing from the network', async () => {
    const charts = await page.locator('.chart svg').evaluateAll((svgs) => svgs.map((svg) => ({
      marks: svg.querySelectorAll('.mark-rect path, .mark-symbol path, .mark-line path, .mark-rule line, .mark-text text').length,
      width: svg.getBoundingClientRect().width,
    })));
    // success-vs-tokens, pass curves, metric bars, flipped heat map, one confusion map per surface.
    expect(charts.length).toBe(6);
    for (const chart of charts) {
      expect(chart.marks).toBeGreaterThan(0);
      expect(chart.width).toBeGreaterThan(100);
    }
    expect(pageErrors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
    await expect(page.locator('.banner').textContent()).resolves.toContain('not of any real model');
  });

  it('filters the trial browser by surface, kind, outcome and text', async () => {
    expect(await visibleRows()).toBe(expected.total);
    await page.selectOption('#filter-outcome', 'fail');
    expect(await visibleRows()).toBe(expected.failed);
    expect(await page.locator('#trial-rows tr[data-outcome="pass"]').count()).toBe(0);

    await page.selectOption('#filter-outcome', 'errored');
    await page.selectOption('#filter-surface', 'typed-v2');
    expect(await visibleRows()).toBe(expected.typedErrored);

    await page.selectOption('#filter-outcome', '');
    await page.selectOption('#filter-surface', 'wide-v1');
    await page.selectOption('#filter-kind', 'must-call');
    expect(await visibleRows()).toBe(expected.wideMustCall);
    await expect(page.locator('#trial-count').textContent()).resolves.toContain(`of ${expected.wideMustCall} matching`);

    await page.fill('#filter-text', 'status-of-t117');
    expect(await visibleRows()).toBe(3);
    await page.fill('#filter-text', 'no-such-task-anywhere');
    expect(await visibleRows()).toBe(0);
  });

  it('opens a trial to show its verdicts, turns, proposals and effects', async () => {
    await page.selectOption('#filter-kind', '');
    await page.selectOption('#filter-surface', 'wide-v1');
    await page.selectOption('#filter-outcome', 'fail');
    await page.fill('#filter-text', 'explain-sla');
    const row = page.locator('#trial-rows tr').first();
    await row.click();
    const detail = page.locator('#trial-detail');
    await expect(detail.textContent()).resolves.toContain('explain-sla');
    const text = (await detail.textContent()) ?? '';
    for (const heading of ['Verdicts', 'Turns', 'Proposals and registry outcomes', 'Side effects', 'Final answer']) expect(text).toContain(heading);
    expect(text).toContain('ticket_operation');
    expect(text).toContain('UNAUTHORIZED');
    // Model text containing markup is shown as text, never parsed as HTML.
    expect(await detail.locator('b').count()).toBe(0);
    expect(text).toContain('</script><b>x</b>');
  });

  it('saves a screenshot under results/', async () => {
    await page.fill('#filter-text', '');
    await page.selectOption('#filter-surface', '');
    await page.selectOption('#filter-outcome', '');
    await page.locator('#trial-rows tr').nth(4).click();
    await mkdir('results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);
  });
});

/**
 * The shipped example (what `npm start` runs), rendered by the real runner
 * into a temporary folder: the acceptance check. It fails, with the
 * runner's own message, when the example cannot run.
 */
describe('report.html of the shipped example run', () => {
  let exampleBrowser: LaunchedBrowser;
  let examplePage: Page;
  let exampleDir: string;

  beforeAll(async () => {
    exampleDir = await mkdtemp(join(tmpdir(), 'toolmark-example-'));
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const run = await promisify(execFile)('node', [resolve('bin/toolmark.js'), 'run', '--root', resolve('.'), '--out', exampleDir, '--run-id', 'example'], { maxBuffer: 64 * 1024 * 1024 })
      .then(() => null, (error: { stderr?: string; message: string }) => error.stderr || error.message);
    expect(run, 'the example run (npm start) failed').toBeNull();
    exampleBrowser = await launchBrowser();
    examplePage = await exampleBrowser.context.newPage();
    examplePage.on('pageerror', (error) => pageErrors.push(error.message));
    await examplePage.goto(pathToFileURL(join(exampleDir, 'example', 'report.html')).href);
  }, 600_000);

  afterAll(async () => {
    await exampleBrowser?.close();
    if (exampleDir) await rm(exampleDir, { recursive: true, force: true });
  });

  it('draws its charts, filters its trials, opens one, and is screenshotted', async () => {
    const marks = await examplePage.locator('.chart svg').evaluateAll((svgs) => svgs.map((svg) => svg.querySelectorAll('path, line, text').length));
    expect(marks.length).toBeGreaterThanOrEqual(4);
    expect(marks.every((count) => count > 0)).toBe(true);
    const rows = examplePage.locator('#trial-rows tr');
    const total = await rows.count();
    expect(total).toBeGreaterThan(0);
    const surface = await examplePage.locator('#filter-surface option').nth(1).getAttribute('value');
    await examplePage.selectOption('#filter-surface', surface!);
    const surfaceRows = await rows.count();
    expect(surfaceRows).toBeGreaterThan(0);
    expect(await examplePage.locator(`#trial-rows tr:not([data-surface="${surface}"])`).count()).toBe(0);
    await examplePage.selectOption('#filter-outcome', 'pass');
    expect(await examplePage.locator('#trial-rows tr:not([data-outcome="pass"])').count()).toBe(0);
    await examplePage.selectOption('#filter-outcome', '');
    await rows.first().click();
    await expect(examplePage.locator('#trial-detail').textContent()).resolves.toContain('Verdicts');
    expect(pageErrors).toEqual([]);
    await mkdir('results', { recursive: true });
    await examplePage.screenshot({ path: resolve('results/report-example-screenshot.png'), fullPage: true });
  });
});
