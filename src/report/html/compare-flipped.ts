import type { FlippedReview, TranscriptSide } from '../../spec/index.ts';
import { htmlEscape as h } from './escape.ts';
import { toolAnchor } from './compare-surface.ts';

/** The flipped-task card of compare.html: each task with its changed tools and both transcripts side by side. */

function side(label: string, surface: string, trial: TranscriptSide): string {
  const turns = trial.turns
    .map(
      (turn, index) =>
        `<div class="turn"><div class="muted">turn ${index}</div>${turn.text !== null ? `<div class="say">${h(turn.text)}</div>` : ''}${turn.tool_calls.map((call) => `<pre>${h(call.name)}(${h(call.arguments)})</pre>`).join('')}</div>`,
    )
    .join('');
  const calls = trial.calls.length
    ? `<div class="scroll"><table><thead><tr><th>turn</th><th>proposal (raw arguments)</th><th>action</th><th>registry outcome</th></tr></thead><tbody>${trial.calls.map((call) => `<tr><td class="num">${call.turn}</td><td class="mono wrap">${h(call.name)} ${h(call.arguments)}${call.schema_valid === false ? ' <span class="bad">(invalid)</span>' : ''}</td><td class="mono">${h(call.routed)}</td><td class="mono wrap ${call.ok ? 'ok' : 'bad'}">${h(call.result)}</td></tr>`).join('')}</tbody></table></div>`
    : '<p class="muted">No call proposed.</p>';
  const answer =
    trial.final_text !== null
      ? `<pre class="answer">${h(trial.final_text)}</pre>`
      : '<p class="muted">No final answer.</p>';
  const failing = trial.failing.length ? `<p class="bad">Failing: ${h(trial.failing.join(', '))}</p>` : '';
  return `<div class="side"><div class="side-head"><strong>${h(label)}</strong> <code>${h(surface)}</code> · trial ${trial.trial} <span class="badge ${trial.pass ? 'pass' : 'fail'}">${trial.pass ? 'pass' : 'fail'}</span> <span class="muted">stop: ${h(trial.stop_reason)}</span></div>${failing}<h4>Turns</h4>${turns || '<p class="muted">none</p>'}<h4>Proposals and registry outcomes</h4>${calls}<h4>Final answer</h4>${answer}</div>`;
}

/** One flipped task as a collapsible block. */
export function flippedHtml(task: FlippedReview, index: number, surfaces: { a: string; b: string }): string {
  const tools = task.changedTools.length
    ? task.changedTools
        .map((name) => `<a class="chip changed" href="#${toolAnchor(task.domain, name)}">${h(name)}</a>`)
        .join(' ')
    : '<span class="muted">no tool it touches changed its text; the change elsewhere (other tools, order) may still matter</span>';
  const messages = task.messages.length
    ? `<div class="messages">${task.messages.map((message) => `<div><span class="muted">${h(message.role)}:</span> ${h(message.content)}</div>`).join('')}</div>`
    : '';
  const pairs = task.pairs
    .map((pair) => `<div class="pair">${side('A', surfaces.a, pair.a)}${side('B', surfaces.b, pair.b)}</div>`)
    .join('');
  const direction =
    task.direction === 'worse' ? '<span class="badge fail">worse</span>' : '<span class="badge pass">better</span>';
  return `<details class="flip" id="flip-${index}"${index < 3 ? ' open' : ''}><summary>${direction} <code>${h(task.task)}</code>${task.provider ? ` <span class="muted">${h(task.provider)}</span>` : ''} <span class="muted">${h(task.split === 'heldout' ? 'held-out' : task.split)} · ${h(task.kind)}</span> <strong>${task.a.c}/${task.a.n} → ${task.b.c}/${task.b.n}</strong></summary>
<div class="flip-body"><div class="linked">Changed tools it touches: ${tools}</div>${messages}${pairs || '<p class="muted">No discordant pair to show.</p>'}</div></details>`;
}
