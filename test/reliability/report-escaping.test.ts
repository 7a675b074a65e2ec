/**
 * Issue 17 item 14 — report.md is pasted into PR comments, where GitHub
 * renders Markdown and some HTML. A cassette's model name (any user string)
 * must land in its table cell as text: no raw HTML, no extra cell.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markdownCell, markdownCode } from '../../src/report/markdown-escape.ts';
import { runInProcess } from '../helpers/in-process-cli.ts';
import { materialize } from '../load/materialize.ts';

const EVIL = '<img src=x onerror=alert(1)>|x';

function cassette(model: string): string {
  const key = { domain: 'notes', task: 'read-n1', surface: 'typed', trial: '*' };
  const call = { id: 'c1', name: 'get_note', arguments: '{"note_id":"N-1"}' };
  return [
    { v: 1, provider: 'openai', model, key: { ...key, turn: 0 }, response: { text: null, tool_calls: [call] } },
    { v: 1, provider: 'openai', model, key: { ...key, turn: 1 }, response: { text: 'It says hello.', tool_calls: [] } },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');
}

const disposers: (() => Promise<void>)[] = [];
afterAll(async () => Promise.all(disposers.map((dispose) => dispose())));

/** The cells of a Markdown table row, split on unescaped pipes as GitHub does. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

describe('report.md escapes every cell for Markdown and HTML', () => {
  it('a model named <img src=x onerror=alert(1)>|x stays text in one cell', async () => {
    const project = await materialize(null, 'report-escaping');
    disposers.push(project.dispose);
    writeFileSync(path.join(project.root, 'evil.jsonl'), cassette(EVIL));
    writeFileSync(path.join(project.root, 'plain.jsonl'), cassette('plain-model'));
    const out = path.join(project.root, 'results');
    const result = await runInProcess([
      'run',
      '--root',
      project.root,
      '--provider',
      'replay:evil.jsonl',
      '--provider',
      'replay:plain.jsonl',
      '--task',
      'read-n1',
      '--surface',
      'typed',
      '--trials',
      '1',
      '--split',
      'train',
      '--out',
      out,
      '--run-id',
      'escaping',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = readFileSync(path.join(out, 'escaping', 'report.md'), 'utf8');
    // No tag GitHub would render: outside code spans (shown as text) and the <sub> footnote, no '<' at all.
    const rendered = report.replace(/`[^`]*`/g, '').replace(/<\/?sub>/g, '');
    expect(rendered).not.toContain('<');
    expect(report).toContain('`replay/<img src=x onerror=alert(1)>\\|x`');
    expect(report).toContain('&lt;img src=x onerror=alert(1)&gt;\\|x');
    // The headline table: the header's column count in every row, the model in the first cell.
    const table = report.split('\n').filter((line) => line.startsWith('|'));
    const width = cells(table[0]!).length;
    expect(cells(table[0]!)[0]).toBe('model');
    for (const row of table) expect(cells(row), row).toHaveLength(width);
    const evilRow = table.find((row) => row.includes('onerror'))!;
    expect(cells(evilRow)[0]).toBe('replay/&lt;img src=x onerror=alert(1)&gt;\\|x');
  });

  it('escapes pipes, backticks, newlines, HTML and Markdown punctuation (hand-written expectations)', () => {
    expect(markdownCell('a|b')).toBe('a\\|b');
    expect(markdownCell('`code`')).toBe("'code'");
    expect(markdownCell('line one\nline two')).toBe('line one line two');
    expect(markdownCell('<b>&amp;</b>')).toBe('&lt;b&gt;&amp;amp;&lt;/b&gt;');
    expect(markdownCell('[x](javascript:1) *y* _z_ ~w~ \\')).toBe('\\[x\\](javascript:1) \\*y\\* \\_z\\_ \\~w\\~ \\\\');
    // In a code span HTML is shown as text; only the pipe and the backtick need care.
    expect(markdownCode('<img>|`x`\n')).toBe("`<img>\\|'x' `");
  });
});
