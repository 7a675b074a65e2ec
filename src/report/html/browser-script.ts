import { METRIC_ONLY } from '../../score/index.ts';

/**
 * The trial browser's client code: small vanilla JS inlined into the page.
 * It reads the embedded JSON (`#trial-data`), filters rows by surface, kind,
 * outcome and free text, and renders a trial's turns, calls, effects and
 * verdicts on click. Every value goes through textContent, never innerHTML,
 * so model output cannot inject markup.
 */
export const BROWSER_SCRIPT = String.raw`
(function () {
  'use strict';
  // Verdicts with this note feed a metric only; the failing-verdicts column lists those that decide success.
  var METRIC_ONLY = ${JSON.stringify(METRIC_ONLY)};
  var data = JSON.parse(document.getElementById('trial-data').textContent);
  var trials = data.trials;
  var PAGE = 300;
  var shown = PAGE;
  var selected = -1;
  var $ = function (id) { return document.getElementById(id); };
  var rows = $('trial-rows'), detail = $('trial-detail'), count = $('trial-count'), more = $('trial-more');
  var filters = { surface: $('filter-surface'), kind: $('filter-kind'), outcome: $('filter-outcome'), text: $('filter-text') };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) {
      if (key === 'text') node.textContent = attrs[key];
      else if (key === 'cls') node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    }
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }
  function badge(outcome) { return el('span', { cls: 'badge ' + outcome, text: outcome }); }
  function haystack(t) {
    return [t.task, t.surface, t.kind, t.split, t.model, t.final_text || '', t.error || '', t.stop_reason]
      .concat(t.calls.map(function (c) { return c.name + ' ' + c.routed + ' ' + c.arguments + ' ' + c.result; }))
      .concat(t.verdicts.map(function (v) { return v.grader + ' ' + (v.note || ''); }))
      .join(' ').toLowerCase();
  }
  trials.forEach(function (t, index) { t._index = index; t._text = haystack(t); });

  function matches(t) {
    if (filters.surface.value && t.surface !== filters.surface.value) return false;
    if (filters.kind.value && t.kind !== filters.kind.value) return false;
    if (filters.outcome.value && t.outcome !== filters.outcome.value) return false;
    var query = filters.text.value.trim().toLowerCase();
    if (query) {
      var words = query.split(/\s+/);
      for (var i = 0; i < words.length; i++) if (t._text.indexOf(words[i]) < 0) return false;
    }
    return true;
  }

  function render() {
    var visible = trials.filter(matches);
    rows.textContent = '';
    visible.slice(0, shown).forEach(function (t) {
      var failing = t.verdicts.filter(function (v) { return !v.pass && v.note !== METRIC_ONLY; }).map(function (v) { return v.grader; }).join(', ');
      var calls = t.calls.map(function (c) { return c.name; }).join(' → ') || '(no call)';
      var tr = el('tr', { 'data-trial': String(t._index), 'data-outcome': t.outcome, 'data-surface': t.surface, 'data-kind': t.kind }, [
        el('td', null, [badge(t.outcome)]),
        el('td', { cls: 'mono', text: t.task + ' #' + t.trial, title: t.domain + '/' + t.task + ' trial ' + t.trial }),
        el('td', { text: t.surface }),
        el('td', { text: t.split }),
        el('td', { text: t.kind }),
        el('td', { cls: 'mono', text: calls }),
        el('td', { text: t.outcome === 'errored' ? (t.error || 'provider error') : failing })
      ]);
      if (t._index === selected) tr.className = 'selected';
      tr.addEventListener('click', function () { open(t._index); });
      rows.appendChild(tr);
    });
    count.textContent = 'Showing ' + Math.min(shown, visible.length) + ' of ' + visible.length + ' matching trials';
    more.hidden = visible.length <= shown;
  }

  function section(title, nodes) {
    return [el('h4', { text: title })].concat(nodes.length ? nodes : [el('div', { cls: 'empty', text: 'none' })]);
  }
  function table(headers, body) {
    return el('table', null, [
      el('thead', null, [el('tr', null, headers.map(function (h) { return el('th', { text: h }); }))]),
      el('tbody', null, body)
    ]);
  }

  function open(index) {
    selected = index;
    var t = trials[index];
    Array.prototype.forEach.call(rows.children, function (tr) { tr.className = tr.getAttribute('data-trial') === String(index) ? 'selected' : ''; });
    var parts = [
      el('h3', null, [el('span', { cls: 'mono', text: t.task + ' #' + t.trial + ' ' }), badge(t.outcome)]),
      el('div', { cls: 'empty', text: t.provider + '/' + t.model + ' · ' + t.surface + ' · ' + t.split + ' · ' + t.kind + ' · stop: ' + t.stop_reason + ' · ' + t.latency_ms + ' ms' })
    ];
    if (t.error) parts.push(el('pre', { cls: 'bad', text: 'Provider error: ' + t.error }));
    parts = parts.concat(section('Verdicts', t.verdicts.length ? [table(['grader', '', 'expected', 'actual'], t.verdicts.map(function (v) {
      return el('tr', null, [el('td', { text: v.grader }), el('td', { cls: v.pass ? 'ok' : 'bad', text: v.pass ? 'pass' : 'fail' }),
        el('td', { cls: 'mono', text: v.expected }), el('td', { cls: 'mono', text: v.actual + (v.note ? '  (' + v.note + ')' : '') })]);
    }))] : []));
    parts = parts.concat(section('Turns', t.turns.map(function (turn, i) {
      var cut = turn.finish_reason === 'length';
      // Arguments shown as written, after the name: a call cut at the token limit is not made to look like name({).
      var lines = turn.tool_calls.map(function (c) { return el('pre', { cls: cut ? 'bad' : '', text: c.name + ' ' + c.arguments + (cut ? '   ⚠ cut at the token limit' : '') }); });
      var warnings = (turn.warnings || []).map(function (w) { return el('div', { cls: 'bad', text: '⚠ ' + w }); });
      return el('div', { cls: 'turn' }, [el('div', { cls: 'empty', text: 'turn ' + i + ' · ' + turn.finish_reason + (cut ? ' (cut at the token limit)' : '') })]
        .concat(turn.text !== null ? [el('div', { text: turn.text })] : []).concat(lines).concat(warnings));
    })));
    parts = parts.concat(section('Proposals and registry outcomes', t.calls.length ? [table(['turn', 'proposal', 'routed to', 'schema', 'outcome'], t.calls.map(function (c) {
      return el('tr', null, [el('td', { cls: 'num', text: String(c.turn) }), el('td', { cls: 'mono', text: c.name + ' ' + c.arguments }),
        el('td', { cls: 'mono', text: c.routed + (c.approved ? ' · approved' : '') + (c.fault ? ' · fault ' + c.fault : '') }),
        el('td', { cls: c.schema_valid === false ? 'bad' : '', text: c.schema_valid === null ? '–' : c.schema_valid ? 'valid' : 'invalid' }),
        el('td', { cls: 'mono ' + (c.ok ? 'ok' : 'bad'), text: c.result })]);
    }))] : []));
    parts = parts.concat(section('Side effects', t.effects.map(function (e) {
      var flags = (e.authorized === false ? ' · UNAUTHORIZED' : '') + (e.duplicate ? ' · duplicate' : '');
      return el('div', { cls: 'mono ' + (e.authorized === false || e.duplicate ? 'bad' : ''), text: e.effect + ' ' + e.action + ' → ' + e.target + flags });
    })));
    parts = parts.concat(section('Final answer', t.final_text !== null ? [el('pre', { text: t.final_text })] : []));
    detail.textContent = '';
    parts.forEach(function (node) { detail.appendChild(node); });
  }

  ['surface', 'kind', 'outcome'].forEach(function (name) { filters[name].addEventListener('change', function () { shown = PAGE; render(); }); });
  filters.text.addEventListener('input', function () { shown = PAGE; render(); });
  more.addEventListener('click', function () { shown += PAGE; render(); });
  render();
})();
`;
