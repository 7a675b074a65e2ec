import type { TrialRecord } from '../spec/index.ts';
import { parseTrialLine } from './trials.ts';
import { isTrialRecordShape } from '../spec/index.ts';

/**
 * A trial line split into its evidence and its grade, for re-scoring.
 *
 * The runner writes `verdicts` and `success` as the last two keys of every
 * record (src/solve/trial.ts builds the record in that order), and verdicts
 * are about a third of a line's bytes. A re-score replaces them anyway, so
 * it parses only the evidence before them: `head` is the line up to
 * `,"verdicts":[`, and `head + "}"` is the record without its grade.
 *
 * The cut is found with `lastIndexOf`, which is safe without understanding
 * the JSON: inside a JSON string a quote is always escaped, so the raw text
 * `"verdicts":[` only occurs as a key. If the last such key is not the
 * top-level one (a tool argument named `verdicts` inside the verdicts), the
 * head ends inside an open array, `head + "}"` is not JSON, and the line is
 * parsed whole instead. So is any line the fast path does not fit (records
 * of an older key order, with fields after `success`): the result is the
 * same, only slower.
 */
export interface UngradedTrial {
  /** The record with `verdicts: []` and `success: null`. */
  record: TrialRecord;
  /** The grade as written: `"verdicts":[…],"success":…` (re-made from the record on the slow path). */
  graded: string;
  /** The line before `,"verdicts":`, when the line is exactly `head,graded}`; null on the slow path. */
  head: string | null;
}

const GRADE_KEY = ',"verdicts":[';
const GRADE_ENDINGS = ['"success":true', '"success":false', '"success":null'];

/**
 * The one serializer of a trial line (docs/formats.md#trial-record): the
 * record's JSON with the grade — `verdicts`, then `success` — as its last
 * two keys, which re-scoring relies on to cut the line (parseUngradedTrialLine).
 * The runner builds records in that order already; any other key order
 * (a record filled in by other code) is put right here.
 */
export function trialLine(record: TrialRecord): string {
  if (gradeIsLast(record)) return JSON.stringify(record);
  const { verdicts, success, ...evidence } = record;
  return JSON.stringify({ ...evidence, verdicts, success });
}

/** Are `verdicts` and `success` the record's last two keys? (Read by `for…in`, which makes no array of the keys.) */
function gradeIsLast(record: TrialRecord): boolean {
  let beforeLast: string | undefined;
  let last: string | undefined;
  for (const key in record) {
    beforeLast = last;
    last = key;
  }
  return beforeLast === 'verdicts' && last === 'success';
}

/** `"verdicts":[…],"success":…` of a record: the text a line ends with, before its closing brace. */
export function gradedText(record: Pick<TrialRecord, 'verdicts' | 'success'>): string {
  return `"verdicts":${JSON.stringify(record.verdicts)},"success":${JSON.stringify(record.success)}`;
}

/** Parse one trial line without its grade (see UngradedTrial); null for a blank line; ConfigError for a bad line. */
export function parseUngradedTrialLine(text: string, file: string, line: number): UngradedTrial | null {
  const cut = text.lastIndexOf(GRADE_KEY);
  if (cut > 0 && text.charCodeAt(text.length - 1) === 0x7d /* } */) {
    const graded = text.slice(cut + 1, -1);
    // Nothing may follow `success` (older records had `started_at` there): it would be lost.
    if (GRADE_ENDINGS.some((ending) => graded.endsWith(ending))) {
      const head = text.slice(0, cut);
      const record = parseHead(head);
      if (record !== null) return { record, graded, head };
    }
  }
  const record = parseTrialLine(text, file, line);
  if (record === null) return null;
  return { record: { ...record, verdicts: [], success: null }, graded: gradedText(record), head: null };
}

/** The record of `head + "}"` with an empty grade, or null when that is not a whole, valid record. */
function parseHead(head: string): TrialRecord | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(`${head}}`) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || 'verdicts' in value || 'success' in value) return null;
  value.verdicts = [];
  value.success = null;
  return isTrialRecordShape(value) ? value : null;
}
