import type { RunData } from '../run-data.ts';
import { errorLines, incompleteNote, turnLine, usageLines } from '../run-facts.ts';
import { htmlEscape as h } from './escape.ts';

/** The usage, turns and errors card of report.html (the same lines as report.md). */
export function factsBody(data: RunData): string {
  const list = (lines: string[]) => `<ul>${lines.map((line) => `<li>${h(line)}</li>`).join('')}</ul>`;
  const errors = errorLines(data.facts);
  return `${list([...usageLines(data.facts), turnLine(data.facts)])}${errors.length > 0 ? `<h3>Errors</h3>${list(errors)}` : '<p class="note">No provider failures.</p>'}`;
}

/** A banner when the run folder holds fewer trials than planned, or the run never finished. */
export function incompleteBanner(data: RunData): string {
  const note = incompleteNote(data.facts);
  return note ? `<div class="banner" role="note"><strong>⚠ Incomplete:</strong> ${h(note)}</div>` : '';
}
