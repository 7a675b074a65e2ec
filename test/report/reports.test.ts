import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRun, renderHtml, renderRunReports, xmlEscape } from '../../src/report/index.ts';
import { jsonForScript } from './json-for-script.ts';
import { GateConfig, type Summary, type TrialRecord } from '../../src/spec/index.ts';
import { writeFixtureRun } from './fixture-run.ts';
import { findAll, parseXml } from './xml-reader.ts';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'toolmark-report-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function render(
  name: string,
  options: Parameters<typeof writeFixtureRun>[1] = {},
  gate = GateConfig.parse({}),
  sampleLimit?: number,
) {
  const dir = join(workDir, name);
  const fixture = await writeFixtureRun(dir, options);
  const paths = await renderRunReports(dir, { gate, sampleLimit });
  return {
    ...fixture,
    paths,
    markdown: await readFile(paths.markdown, 'utf8'),
    html: await readFile(paths.html, 'utf8'),
    junit: await readFile(paths.junit, 'utf8'),
  };
}

/** `72% [61–81]`, computed here from the summary's own numbers. */
const rateText = (rate: { value: number | null; ci95: [number, number] | null }) =>
  `${Math.round(rate.value! * 100)}% [${Math.round(rate.ci95![0] * 100)}–${Math.round(rate.ci95![1] * 100)}]`;

function headlineRows(summary: Summary) {
  return summary.groups.filter((group) => group.kind === 'all');
}

describe('report.md', () => {
  it('fits a PR comment and carries the summary headline numbers per surface × split', async () => {
    const { markdown, summary, records, paths } = await render('md', { synthetic: true });
    expect(paths.markdown.endsWith('report.md')).toBe(true);
    expect(markdown.trimEnd().split('\n').length).toBeLessThanOrEqual(60);
    const rows = markdown.split('\n').filter((line) => /^\| (typed-v2|wide-v1) \|/.test(line));
    expect(rows).toHaveLength(4);
    for (const group of headlineRows(summary)) {
      const row = rows.find((line) => line.startsWith(`| ${group.surface} | ${group.split} |`));
      expect(row, `${group.surface} ${group.split}`).toBeDefined();
      const cells = row!
        .split('|')
        .map((cell) => cell.trim())
        .filter(Boolean);
      // surface, split, n, selection, args valid, args correct, task success, unsafe prop., unsafe effects, recovery, pass^3, tokens
      expect(cells[2]).toBe(String(group.task_success.n));
      expect(cells[3]).toBe(rateText(group.selection_accuracy));
      expect(cells[6]).toBe(rateText(group.task_success));
      expect(cells[7]).toBe(`${group.unsafe_proposals.count}/${group.unsafe_proposals.n}`);
      expect(cells[8]).toBe(`${group.unsafe_side_effects.count}/${group.unsafe_side_effects.n}`);
      expect(cells[10]).toBe(`${Math.round(group.pass_hat_k[2]! * 100)}%`);
      expect(cells[11]).toBe(String(group.schema_tokens));
    }
    const errored = records.filter((record) => record.status === 'errored').length;
    expect(errored).toBeGreaterThan(0);
    expect(markdown).toContain(`**${errored} errored**`);
    expect(markdown).toContain('scores of synthetic cassettes, not of any real model');
    expect(markdown).toContain('### Tasks with the most failures');
  });

  it('names the tasks with the most failed trials first', async () => {
    const { markdown, records } = await render('md-worst', { synthetic: false });
    const failures = new Map<string, number>();
    for (const record of records) {
      if (record.status === 'completed' && !record.success)
        failures.set(`${record.task}|${record.surface}`, (failures.get(`${record.task}|${record.surface}`) ?? 0) + 1);
    }
    const most = Math.max(...failures.values());
    const section = markdown.split('### Tasks with the most failures')[1]!;
    const firstRow = section.split('\n').find((line) => line.startsWith('| `'))!;
    const [task, surface] = firstRow
      .split('|')
      .map((cell) => cell.trim())
      .filter(Boolean);
    expect(failures.get(`${task!.replace(/`/g, '').replace(/'/g, '"').replace(/\\\|/g, '|')}|${surface}`)).toBe(most);
    expect(markdown).not.toContain('synthetic cassettes');
  });

  it('adds a model column when a run has several providers/models', async () => {
    const { markdown } = await render('md-models', {
      models: [
        { provider: 'openai', model: 'gpt-4.1-mini' },
        { provider: 'anthropic', model: 'claude-x' },
      ],
    });
    expect(markdown).toMatch(/^\| model \| surface \| split \|/m);
    const headline = (model: string) =>
      markdown
        .split('\n')
        .filter((line) => new RegExp(`^\\| ${model} \\| (typed-v2|wide-v1) \\| (train|heldout) \\|`).test(line));
    expect(headline('anthropic/claude-x')).toHaveLength(4);
    expect(headline('openai/gpt-4.1-mini')).toHaveLength(4);
    expect(markdown.trimEnd().split('\n').length).toBeLessThanOrEqual(60);
  });
});

/** Per task × surface, what the JUnit case must say, computed from the records. */
function expectedCases(records: TrialRecord[], threshold: number) {
  const cases = new Map<string, { completed: number; successes: number }>();
  for (const record of records) {
    const key = `${record.provider}/${record.model}.${record.surface}|${record.domain}/${record.task}`;
    const entry = cases.get(key) ?? { completed: 0, successes: 0 };
    if (record.status === 'completed') {
      entry.completed += 1;
      if (record.success) entry.successes += 1;
    }
    cases.set(key, entry);
  }
  const values = [...cases.values()];
  return {
    tests: cases.size,
    errors: values.filter((value) => value.completed === 0).length,
    failures: values.filter((value) => value.completed > 0 && value.successes / value.completed < threshold).length,
  };
}

describe('junit.xml', () => {
  it('has one well-formed testcase per task × surface, failing below the gate threshold', async () => {
    const { junit, records } = await render('junit', { synthetic: true });
    const root = parseXml(junit);
    expect(root.name).toBe('testsuites');
    const cases = findAll(root, 'testcase');
    const expected = expectedCases(records, 0.5);
    expect(cases).toHaveLength(expected.tests);
    expect(cases.filter((testcase) => testcase.children.some((child) => child.name === 'failure'))).toHaveLength(
      expected.failures,
    );
    expect(cases.filter((testcase) => testcase.children.some((child) => child.name === 'error'))).toHaveLength(
      expected.errors,
    );
    expect(Number(root.attributes.tests)).toBe(expected.tests);
    expect(Number(root.attributes.failures)).toBe(expected.failures);
    expect(Number(root.attributes.errors)).toBe(expected.errors);
    const suites = findAll(root, 'testsuite');
    expect(suites.map((suite) => suite.attributes.name).sort()).toEqual([
      'replay/synthetic-fixture.typed-v2',
      'replay/synthetic-fixture.wide-v1',
    ]);
    expect(suites.reduce((sum, suite) => sum + Number(suite.attributes.tests), 0)).toBe(expected.tests);

    // The task id with markup survives escaping and reads back exactly.
    expect(
      cases.some((testcase) => testcase.attributes.name!.startsWith('tickets/script-</script>-&-"quotes" [')),
    ).toBe(true);
    const failure = cases.flatMap((testcase) => testcase.children).find((child) => child.name === 'failure')!;
    expect(failure.attributes.message).toMatch(/^task success \d+\/\d+ \(\d+%\) < 50%; failing verdicts: /);
    expect(failure.text).toMatch(/selection: expected /);
    const error = cases.flatMap((testcase) => testcase.children).find((child) => child.name === 'error')!;
    expect(error.attributes.message).toContain('upstream overloaded <retry later> & "soon"');
  });

  it('takes its threshold from the gate config', async () => {
    const { junit, records } = await render('junit-strict', {}, GateConfig.parse({ junit_min_success: 1 }));
    const root = parseXml(junit);
    expect(Number(root.attributes.failures)).toBe(expectedCases(records, 1).failures);
    expect(expectedCases(records, 1).failures).toBeGreaterThan(expectedCases(records, 0.5).failures);
  });

  it('escapes every XML special and drops characters XML 1.0 forbids', () => {
    const nasty = 'a<b>&"c\'\u0001\u0008\uFFFE\uD800z\nline';
    const escaped = xmlEscape(nasty);
    expect(escaped).not.toMatch(/[<>"'\u0001\u0008\uFFFE\uD800]/);
    const root = parseXml(`<x v="${escaped}">${escaped}</x>`);
    expect(root.attributes.v).toBe('a<b>&"c\'z\nline');
  });
});

describe('report.html', () => {
  it('is one self-contained file: no network loads, charts inline as SVG, data embedded safely', async () => {
    const { html, records } = await render('html', { synthetic: true });
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html.match(/<svg\b/g)?.length).toBe(6);
    expect(html).toContain('scores of synthetic cassettes, not of any real model');
    // Exactly the two real closing tags: the task id and model text with </script> were escaped.
    expect(html.match(/<\/script>/gi)).toHaveLength(2);
    const json = html.match(/<script type="application\/json" id="trial-data">([\s\S]*?)<\/script>/)![1]!;
    const data = JSON.parse(json) as { trials: { task: string; outcome: string }[]; total: number };
    expect(data.total).toBe(records.length);
    expect(data.trials).toHaveLength(records.length);
    expect(data.trials.some((trial) => trial.task === 'script-</script>-&-"quotes"')).toBe(true);
    expect(html).toContain(`All ${records.length} trials are embedded.`);
  });

  it('is written piece by piece exactly as renderHtml makes it, the sample exactly jsonForScript of it', async () => {
    const { html, paths } = await render('html-chunks', { synthetic: true, trials: 6 }, GateConfig.parse({}), 40);
    const data = await collectRun(join(workDir, 'html-chunks'), { sampleLimit: 40 });
    // Vega numbers gradients and clip paths per process, so a second rendering of a chart differs; the rest must not.
    const withoutCharts = (text: string) => text.replace(/<svg\b[\s\S]*?<\/svg>/g, '<svg/>');
    expect(withoutCharts(html)).toBe(withoutCharts(await renderHtml(data)));
    const embedded = jsonForScript({
      trials: data.sample.trials.map((trial) => JSON.parse(Buffer.from(trial.bytes).toString('utf8')) as unknown),
      total: data.sample.total,
      limit: data.sample.limit,
    });
    expect(html).toContain(`<script type="application/json" id="trial-data">${embedded}</script>`);
    expect(paths.html.endsWith('report.html')).toBe(true);
  });

  it('embeds a capped sample, failures and errored trials first, and says so', async () => {
    const { html, records } = await render('html-sample', {}, GateConfig.parse({}), 10);
    const data = JSON.parse(html.match(/id="trial-data">([\s\S]*?)<\/script>/)![1]!) as {
      trials: { outcome: string }[];
      total: number;
      limit: number;
    };
    const problems = records.filter((record) => record.status === 'errored' || !record.success).length;
    expect(problems).toBeGreaterThan(10);
    expect(data.trials).toHaveLength(10);
    expect(data.trials.every((trial) => trial.outcome !== 'pass')).toBe(true);
    expect(html).toContain(`a sample of <strong>10</strong> of ${records.length} trials`);
  });

  it('still renders a run whose summary has no groups', async () => {
    const dir = join(workDir, 'empty');
    const { summary } = await writeFixtureRun(dir);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'summary.json'), JSON.stringify({ ...summary, groups: [], confusion: [] }));
    await writeFile(join(dir, 'trials.jsonl'), '');
    const paths = await renderRunReports(dir, { gate: GateConfig.parse({}) });
    expect(await readFile(paths.markdown, 'utf8')).toContain('No summary groups');
    expect(parseXml(await readFile(paths.junit, 'utf8')).attributes.tests).toBe('0');
    expect(await readFile(paths.html, 'utf8')).toContain('No scored groups in this run.');
  });
});
