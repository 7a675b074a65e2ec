import type { GateConfig } from '../spec/index.ts';
import { formatPercent } from './headline.ts';
import type { RunData } from './run-data.ts';
import { incompleteNote } from './run-facts.ts';
import { describeFailingGraders, successRate, type TaskOutcome } from './task-outcomes.ts';

/* eslint-disable no-control-regex */
/** Characters XML 1.0 forbids outright (control characters, U+FFFE/FFFF), and surrogates, of which only lone ones are. */
const FORBIDDEN_OR_SURROGATE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
  '\n': '&#10;',
};
const ESCAPED = /[&<>"'\r\n]/g;
const ESCAPED_BUT_NEWLINES = /[&<>"'\r]/g;
const NEEDS_ESCAPING = /[&<>"'\r\n\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;
/* eslint-enable no-control-regex */

/**
 * Escapes text for XML 1.0 attribute values and text: the five entities, and
 * characters XML 1.0 forbids outright (control characters, lone surrogates)
 * dropped, since a model's output may contain anything. Most texts (task
 * ids, counts, grader names) need none of it: one test finds out. The rest
 * (a failing case's verdicts quote JSON) are escaped in one pass, not a
 * chain of replacements each copying the text (junit.xml of 10,000 failing
 * cases spent most of its time there and in collecting those copies).
 */
export function xmlEscape(text: string): string {
  return escapeXml(text, ESCAPED);
}

/** Text content keeps its newlines readable (only attributes need them encoded). */
function xmlText(text: string): string {
  return escapeXml(text, ESCAPED_BUT_NEWLINES);
}

function escapeXml(text: string, escaped: RegExp): string {
  if (!NEEDS_ESCAPING.test(text)) return text;
  const allowed = FORBIDDEN_OR_SURROGATE.test(text) ? text.replace(FORBIDDEN, '') : text;
  return allowed.replace(escaped, (char) => ENTITIES[char]!);
}

/** The classname CI groups cases by: provider/model and surface. */
export function junitClassname(outcome: Pick<TaskOutcome, 'provider' | 'model' | 'surface'>): string {
  return `${outcome.provider}/${outcome.model}.${outcome.surface}`;
}

type CaseState = 'passed' | 'failed' | 'errored';

/** A case fails when its completed trials' success rate is below the gate; errored-only cases are errors. */
export function caseState(outcome: TaskOutcome, gate: GateConfig): CaseState {
  const rate = successRate(outcome);
  if (rate === null) return 'errored';
  return rate < gate.junit_min_success ? 'failed' : 'passed';
}

/**
 * What the cases of one junit.xml share: the gate's threshold as text, and
 * each failing verdict's line escaped once — a run's failing verdicts repeat
 * across tasks (the same wrong action; the collector keeps each text once,
 * task-outcomes.ts), and escaping them was a third of the file's cost.
 */
interface CaseContext {
  threshold: string;
  escapedVerdicts: Map<string, string>;
}

/**
 * Lines remembered at most: a 10,000-task run has ~2,200 distinct ones
 * (6,400 in all); a larger run's junit.xml holds no more than this many
 * extra strings (a large run's peak memory is in its reports step).
 */
const REMEMBERED_VERDICTS = 10_000;

/** `xmlText` of one verdict line, remembered. */
function escapedVerdict(context: CaseContext, verdict: string): string {
  let escaped = context.escapedVerdicts.get(verdict);
  if (escaped === undefined) {
    escaped = xmlText(verdict);
    if (context.escapedVerdicts.size < REMEMBERED_VERDICTS) context.escapedVerdicts.set(verdict, escaped);
  }
  return escaped;
}

/**
 * A failure's text, escaped: `xmlText` of the failed trials' lines, made
 * from pieces escaped apart. The same text, since the pieces meet at
 * newlines and spaces: an escape never spans them (a lone surrogate is
 * dropped whatever its ASCII neighbours), and `trial N:` needs none.
 */
function failureDetails(outcome: TaskOutcome, context: CaseContext): string {
  let details = '';
  for (let index = 0; index < outcome.failedTrials.length; index += 1) {
    const failed = outcome.failedTrials[index]!;
    details += `${index === 0 ? '' : '\n'}trial ${failed.trial}:\n`;
    if (failed.verdicts.length === 0) details += '  (no failing verdict recorded)';
    for (let at = 0; at < failed.verdicts.length; at += 1)
      details += `${at === 0 ? '' : '\n'}  - ${escapedVerdict(context, failed.verdicts[at]!)}`;
  }
  return details;
}

/** One case; `classname` (its suite's, escaped) and `state` are worked out once per suite and case by the caller. */
function renderCase(outcome: TaskOutcome, context: CaseContext, classname: string, state: CaseState): string {
  const name = `${outcome.domain}/${outcome.task} [${outcome.split}, ${outcome.kind}]`;
  const time = (outcome.latencyMs / 1000).toFixed(3);
  let text = `    <testcase classname="${classname}" name="${xmlEscape(name)}" time="${time}">\n`;
  if (state === 'errored') {
    const message = `all ${outcome.trials} trials errored (provider failure, not a model miss): ${outcome.errorMessages.join(' | ')}`;
    text += `      <error message="${xmlEscape(message)}" type="provider_error">${xmlText(outcome.errorMessages.join('\n'))}</error>\n`;
  } else if (state === 'failed') {
    // xmlEscape of `task success 3/4 (75%) < 80%; failing verdicts: …`: its head is digits, signs and `<`.
    const message = `task success ${outcome.successes}/${outcome.completed} (${formatPercent(successRate(outcome))}) &lt; ${context.threshold}; failing verdicts: ${xmlEscape(describeFailingGraders(outcome, 5) || 'none recorded')}`;
    text += `      <failure message="${message}" type="task_failure">${failureDetails(outcome, context)}</failure>\n`;
  }
  const outcomes = outcome.outcomes.join(' ');
  const notes =
    outcome.errored > 0 && state !== 'errored'
      ? `trials: ${outcomes}\n${outcome.errored} errored trial(s) not counted: ${outcome.errorMessages.join(' | ')}`
      : `trials: ${outcomes}`;
  return `${text}      <system-out>${xmlText(notes)}</system-out>\n    </testcase>`;
}

/**
 * Renders junit.xml: one testsuite per provider/model × surface, one testcase
 * per task in it. Reads only the reduced task outcomes, never whole trials.
 */
export function renderJunit(data: RunData, gate: GateConfig): string {
  return [...junitChunks(data, gate)].join('');
}

/**
 * junit.xml as a sequence of pieces whose concatenation is `renderJunit`'s
 * text, made as they are written: at 100,000 tasks the file is ~30 MB, and
 * made whole it was held two or three times over (cases, blocks, the join).
 * The counts of the `<testsuites>` element are added up first.
 */
export function* junitChunks(data: RunData, gate: GateConfig): Generator<string> {
  const suites = new Map<string, TaskOutcome[]>();
  for (const outcome of data.outcomes) {
    const key = junitClassname(outcome);
    const list = suites.get(key) ?? [];
    list.push(outcome);
    suites.set(key, list);
  }
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let totalTime = 0;
  const heads: string[] = [];
  const caseStates: CaseState[][] = [];
  const sorted = [...suites.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  for (const [name, outcomes] of sorted) {
    outcomes.sort(
      (a, b) => a.split.localeCompare(b.split) || a.domain.localeCompare(b.domain) || a.task.localeCompare(b.task),
    );
    const states = outcomes.map((outcome) => caseState(outcome, gate));
    caseStates.push(states);
    const suiteFailures = states.filter((state) => state === 'failed').length;
    const suiteErrors = states.filter((state) => state === 'errored').length;
    const time = outcomes.reduce((sum, outcome) => sum + outcome.latencyMs, 0) / 1000;
    tests += outcomes.length;
    failures += suiteFailures;
    errors += suiteErrors;
    totalTime += time;
    heads.push(
      `  <testsuite name="${xmlEscape(name)}" tests="${outcomes.length}" failures="${suiteFailures}" errors="${suiteErrors}" skipped="0" time="${time.toFixed(3)}">\n`,
    );
  }
  const label = `toolmark ${data.summary.run_id}${data.synthetic ? ' (synthetic fixtures)' : ''}`;
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites name="${xmlEscape(label)}" tests="${tests}" failures="${failures}" errors="${errors}" time="${totalTime.toFixed(3)}">\n`;
  // A partial or incomplete run says so in every suite (properties are what CI tools show of a suite).
  const incomplete = incompleteNote(data.facts);
  const properties = incomplete
    ? `    <properties><property name="toolmark.incomplete" value="${xmlEscape(incomplete)}"/></properties>\n`
    : '';
  const context: CaseContext = { threshold: formatPercent(gate.junit_min_success), escapedVerdicts: new Map() };
  for (let index = 0; index < sorted.length; index += 1) {
    yield heads[index]! + properties;
    const [name, outcomes] = sorted[index]!;
    const classname = xmlEscape(name);
    for (let at = 0; at < outcomes.length; at += 1)
      yield `${renderCase(outcomes[at]!, context, classname, caseStates[index]![at]!)}\n`;
    yield '  </testsuite>\n';
  }
  yield '</testsuites>\n';
}
