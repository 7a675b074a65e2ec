/** The report's stylesheet, inlined into the page (no external fonts or files). */
export const REPORT_CSS = `
:root {
  --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --panel: #ffffff; --page: #f5f6f8;
  --accent: #4c78a8; --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #b42318; --fail-bg: #fee4e2;
  --err: #8a5a00; --err-bg: #fff1c2; --warn-bg: #fff8e1; --warn-line: #f0c36d;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
header.top { background: #111827; color: #f9fafb; padding: 18px 32px 16px; }
header.top h1 { margin: 0 0 4px; font-size: 20px; font-weight: 650; letter-spacing: .2px; }
header.top h1 code { font-size: 18px; color: #c7d2fe; background: none; }
header.top .meta { color: #cbd5e1; font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 18px; }
nav.toc { display: flex; gap: 14px; padding: 8px 32px; background: #1f2937; font-size: 13px; flex-wrap: wrap; }
nav.toc a { color: #e5e7eb; text-decoration: none; } nav.toc a:hover { text-decoration: underline; }
main { max-width: 1440px; margin: 0 auto; padding: 20px 32px 48px; }
.banner { background: var(--warn-bg); border: 1px solid var(--warn-line); border-left: 5px solid #e0a100;
  padding: 10px 14px; border-radius: 6px; margin: 0 0 18px; font-size: 14px; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; margin-bottom: 18px; }
.kpi { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.kpi .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .4px; }
.kpi .value { font-size: 22px; font-weight: 650; margin-top: 2px; }
.kpi .sub { color: var(--muted); font-size: 12px; }
section.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 16px 18px; margin-bottom: 18px; }
section.card h2 { font-size: 16px; margin: 0 0 4px; }
section.card p.note { color: var(--muted); margin: 0 0 12px; font-size: 13px; }
.grid-2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 18px; }
.chart { overflow-x: auto; max-width: 100%; }
/* Charts keep their drawn size (text stays legible) and scroll inside their card when wider. */
.chart svg { max-width: none; height: auto; display: block; }
section.card { min-width: 0; overflow: hidden; }
.scroll { overflow-x: auto; max-width: 100%; } .scroll.tall { max-height: 520px; overflow-y: auto; border: 1px solid var(--line); border-radius: 6px; }
th.group { text-align: center; border-bottom: 1px solid var(--line); }
td.best strong { color: var(--pass); } td.worst strong { color: var(--fail); }
details.group { margin: 6px 0; } details.group > summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
.muted { color: var(--muted); }
.confusions { display: flex; flex-wrap: wrap; gap: 22px; }
.confusions figure { margin: 0; } .confusions figcaption { font-weight: 600; font-size: 13px; margin-bottom: 4px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; background: #fafbfc; position: sticky; top: 0; }
td.nowrap { white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; }
.badge.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail { color: var(--fail); background: var(--fail-bg); }
.badge.errored { color: var(--err); background: var(--err-bg); }
.dots span { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 3px; }
.dots .pass { background: #2da44e; } .dots .fail { background: #e5534b; } .dots .errored { background: #d4a72c; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 6px 0 10px; }
.filters label { font-size: 12px; color: var(--muted); display: flex; flex-direction: column; gap: 2px; }
.filters select, .filters input { font: inherit; padding: 5px 8px; border: 1px solid #cfd5dd; border-radius: 6px; background: #fff; min-width: 150px; }
.filters input[type=search] { min-width: 260px; }
#trial-count { color: var(--muted); font-size: 13px; margin-left: auto; }
.browser { display: grid; grid-template-columns: minmax(0, 1.3fr) minmax(0, 1fr); gap: 16px; }
#trial-rows td { white-space: nowrap; }
#trial-rows td.mono { max-width: 220px; overflow: hidden; text-overflow: ellipsis; }
.browser .list { max-height: 640px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
#trial-rows tr { cursor: pointer; } #trial-rows tr:hover { background: #f3f6fb; }
#trial-rows tr.selected { background: #e8f0fe; }
#trial-detail { border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; max-height: 640px; overflow: auto; background: #fcfcfd; }
#trial-detail td.mono { overflow-wrap: anywhere; } #trial-detail td { min-width: 40px; }
#trial-detail h3 { margin: 0 0 6px; font-size: 15px; } #trial-detail h4 { margin: 14px 0 6px; font-size: 13px; color: #374151; }
#trial-detail pre { white-space: pre-wrap; word-break: break-word; background: #f3f4f6; border-radius: 4px; padding: 6px 8px; margin: 4px 0; }
#trial-detail .empty { color: var(--muted); }
.turn { border-left: 3px solid #c7d2fe; padding: 2px 0 2px 10px; margin-bottom: 8px; }
.ok { color: var(--pass); } .bad { color: var(--fail); }
button.more { margin-top: 8px; font: inherit; padding: 5px 12px; border: 1px solid #cfd5dd; border-radius: 6px; background: #fff; cursor: pointer; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 12px; }
@media (max-width: 900px) { .browser { grid-template-columns: 1fr; } main { padding: 16px; } }
.scroll td:first-child { white-space: nowrap; }
@media (max-width: 600px) {
  main { padding: 10px; } section.card { padding: 12px; } header.top, nav.toc { padding-left: 12px; padding-right: 12px; }
  .kpis { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px; } .kpi .sub { display: none; }
  /* Rows stay on one line and the table scrolls: narrow wrapped columns are harder to read. */
  .scroll td, .scroll th { white-space: nowrap; }
  .filters input[type=search] { min-width: 0; width: 100%; }
}
/* A chart marked .fit shrinks to its card (small charts whose text stays readable when scaled). */
.chart.fit svg { max-width: 100%; }
`;

/** Extra rules of compare.html (on top of the report's stylesheet). */
export const COMPARE_CSS = `
.decision { border-left: 6px solid #9aa3af; }
.decision.good { border-left-color: var(--pass); } .decision.bad { border-left-color: var(--fail); } .decision.warn { border-left-color: #e0a100; }
.decision-label { font-size: 22px; font-weight: 700; }
.decision.good .decision-label { color: var(--pass); } .decision.bad .decision-label { color: var(--fail); } .decision.warn .decision-label { color: var(--err); }
.decision-text { font-size: 15px; margin: 6px 0 8px; max-width: 980px; }
.decision-chip { font-weight: 600; } .decision-chip.good { color: var(--pass); } .decision-chip.bad { color: var(--fail); } .decision-chip.warn { color: var(--err); }
.badge.neutral { color: #374151; background: #eef0f3; font-weight: 500; white-space: normal; }
.muted { color: var(--muted); font-weight: 400; }
.warn-text { color: var(--err); }
section.card h3 { font-size: 14px; margin: 16px 0 6px; } section.card h3.domain { font-size: 15px; }
section.card h4 { font-size: 13px; margin: 12px 0 6px; color: #374151; }
.chip { display: inline-block; padding: 0 7px; border-radius: 999px; font-size: 12px; background: #eef0f3; color: #374151; text-decoration: none; }
.chip.added { background: var(--pass-bg); color: var(--pass); } .chip.removed { background: var(--fail-bg); color: var(--fail); }
.chip.changed { background: #e8f0fe; color: #1d4ed8; }
tr.total td { font-weight: 600; border-top: 2px solid var(--line); }
tr.tool-unchanged td { color: var(--muted); }
del { background: var(--fail-bg); color: var(--fail); text-decoration: line-through; }
ins { background: var(--pass-bg); color: var(--pass); text-decoration: underline; }
del + ins { margin-left: 3px; }
.tool-diff { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 10px 0; scroll-margin-top: 12px; }
.tool-diff:target { outline: 2px solid var(--accent); }
.tool-diff h3 { margin: 2px 0 8px; font-size: 14px; overflow-wrap: anywhere; }
.diff-field { display: grid; grid-template-columns: minmax(90px, 180px) minmax(0, 1fr); gap: 4px 12px; margin: 4px 0; }
.diff-field .field { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; } .diff-field .words { overflow-wrap: anywhere; }
ul.schema, ul.moves { margin: 0; padding-left: 18px; }
details.flip { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; background: #fcfcfd; }
details.flip > summary { cursor: pointer; padding: 8px 12px; overflow-wrap: anywhere; }
.flip-body { padding: 0 12px 12px; }
.linked { margin: 4px 0 8px; } .messages { background: #f3f4f6; border-radius: 4px; padding: 6px 8px; margin-bottom: 8px; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; margin: 10px 0; }
.side { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; background: #fff; min-width: 0; }
.side pre { white-space: pre-wrap; word-break: break-word; background: #f3f4f6; border-radius: 4px; padding: 6px 8px; margin: 4px 0; font-size: 12px; }
.side .say { white-space: pre-wrap; } td.wrap { overflow-wrap: anywhere; white-space: normal; min-width: 120px; }
.confusion { min-width: 260px; flex: 1 1 300px; max-width: 520px; } tr.correct td { font-weight: 600; }
@media (max-width: 900px) { .pair { grid-template-columns: minmax(0, 1fr); } .diff-field { grid-template-columns: minmax(0, 1fr); } header.top, nav.toc { padding-left: 16px; padding-right: 16px; } }
`;
