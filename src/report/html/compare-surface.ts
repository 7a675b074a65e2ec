import { changedTools, type SurfaceDiff, type ToolDiff, type WordDiffPart } from '../../spec/index.ts';
import { costChange, signedInteger, surfaceSummary, toolChangeWords } from '../compare-wording.ts';
import { htmlEscape as h } from './escape.ts';

/** The surface diff card of compare.html: per domain, a table of tools and the word-level diffs. */

/** Anchor of a tool's diff, linked from the flipped tasks. */
export function toolAnchor(domain: string, name: string): string {
  return `tool-${domain}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** A word diff as HTML: deletions struck through in red, additions in green. */
export function htmlWordDiff(parts: readonly WordDiffPart[]): string {
  return parts
    .map((part) =>
      part.op === 'same'
        ? h(part.text)
        : part.op === 'del'
          ? `<del>${h(part.text)}</del>`
          : `<ins>${h(part.text)}</ins>`,
    )
    .join('');
}

function costCell(tool: ToolDiff, unit: 'tokens' | 'bytes'): string {
  const { a, b } = tool.cost;
  const delta = a && b ? b[unit] - a[unit] : null;
  const tone = delta === null || delta === 0 ? '' : delta < 0 ? ' ok' : ' bad';
  return `<td class="num">${a ? a[unit].toLocaleString('en-US') : '—'}</td><td class="num">${b ? b[unit].toLocaleString('en-US') : '—'}</td><td class="num${tone}">${delta === null ? '—' : signedInteger(delta)}</td>`;
}

function toolRow(diff: SurfaceDiff, tool: ToolDiff): string {
  const name = tool.name.b ?? tool.name.a ?? tool.key;
  const position = `${tool.position.a === null ? '—' : tool.position.a + 1} → ${tool.position.b === null ? '—' : tool.position.b + 1}`;
  const words = toolChangeWords(tool, diff.reordered);
  const link =
    tool.status === 'unchanged' && !words.includes('moved')
      ? h(name)
      : `<a href="#${toolAnchor(diff.domain, name)}">${h(name)}</a>`;
  return `<tr class="tool-${tool.status}"><td class="mono">${link}</td><td class="mono">${h(tool.actions.join(', '))}</td><td class="num">${position}</td><td><span class="chip ${tool.status}">${h(tool.status)}</span> ${h(words === tool.status ? '' : words)}</td>${costCell(tool, 'tokens')}${costCell(tool, 'bytes')}</tr>`;
}

function toolDetail(diff: SurfaceDiff, tool: ToolDiff): string {
  const name = tool.name.b ?? tool.name.a ?? tool.key;
  const texts = tool.texts.map(
    (text) =>
      `<div class="diff-field"><div class="field">${h(text.field)}</div><div class="words">${htmlWordDiff(text.diff)}</div></div>`,
  );
  const schema = tool.schema.length
    ? `<div class="diff-field"><div class="field">schema</div><ul class="schema">${tool.schema.map((change) => `<li><code>${h(change.path)}</code> ${h(change.change)}</li>`).join('')}</ul></div>`
    : '';
  const renamed = tool.renamed
    ? `<div class="diff-field"><div class="field">name</div><div class="words"><del>${h(tool.name.a!)}</del> <ins>${h(tool.name.b!)}</ins></div></div>`
    : '';
  const presence =
    tool.status === 'added'
      ? '<p class="note">New tool on B.</p>'
      : tool.status === 'removed'
        ? '<p class="note">Not on B.</p>'
        : '';
  return `<div class="tool-diff" id="${toolAnchor(diff.domain, name)}"><h3><code>${h(name)}</code> <span class="muted">${h(toolChangeWords(tool, diff.reordered))} · tokens ${h(costChange(tool.cost.a, tool.cost.b))}</span></h3>${presence}${renamed}${texts.join('')}${schema}</div>`;
}

/** One domain's diff: summary line, tool table, then the changed tools' texts. */
export function surfaceDiffHtml(diff: SurfaceDiff): string {
  const title = `<h3 class="domain">${h(diff.domain)}: <code>${h(diff.a?.id ?? '—')}</code> → <code>${h(diff.b?.id ?? '—')}</code></h3>`;
  if (diff.unavailable !== null)
    return `${title}<p class="note warn-text">Surface diff unavailable: ${h(diff.unavailable)}.</p>`;
  const surfaceTexts = diff.surfaceTexts
    .map(
      (text) =>
        `<div class="diff-field"><div class="field">${h(text.field)}</div><div class="words">${htmlWordDiff(text.diff)}</div></div>`,
    )
    .join('');
  const head =
    '<tr><th>tool (B name)</th><th>actions</th><th class="num">position A → B</th><th>change</th><th class="num">tokens A</th><th class="num">tokens B</th><th class="num">Δ</th><th class="num">bytes A</th><th class="num">bytes B</th><th class="num">Δ</th></tr>';
  const total =
    diff.total.a && diff.total.b
      ? `<tr class="total"><td>whole payload</td><td></td><td></td><td></td><td class="num">${diff.total.a.tokens.toLocaleString('en-US')}</td><td class="num">${diff.total.b.tokens.toLocaleString('en-US')}</td><td class="num">${signedInteger(diff.total.b.tokens - diff.total.a.tokens)}</td><td class="num">${diff.total.a.bytes.toLocaleString('en-US')}</td><td class="num">${diff.total.b.bytes.toLocaleString('en-US')}</td><td class="num">${signedInteger(diff.total.b.bytes - diff.total.a.bytes)}</td></tr>`
      : '';
  const changed = changedTools(diff);
  return `${title}<p class="note">${h(surfaceSummary(diff))}.</p>${surfaceTexts}
<div class="scroll"><table class="tools"><thead>${head}</thead><tbody>${diff.tools.map((tool) => toolRow(diff, tool)).join('')}${total}</tbody></table></div>
${changed.length ? `<div class="tool-diffs">${changed.map((tool) => toolDetail(diff, tool)).join('')}</div>` : '<p class="note">No tool changed.</p>'}`;
}
