import type { CallRecord, ModelTurn } from '../spec/index.ts';
import { isMalformed } from './call-view.ts';

/**
 * What the model did in a must-abstain task (SPEC §5). Only the native
 * tool-call channel counts: a malformed or hallucinated call is a call,
 * never an abstention.
 * - `answered`              — no call; a direct answer
 * - `asked_for_information` — no call; the text asks the user a question
 * - `cut_off_or_empty`      — no call, but no answer either: the last reply was cut at the
 *                             token limit, or empty (not an abstention: nothing was decided)
 * - `malformed_call`        — only malformed calls (bad JSON, unknown tool or selector, schema failure)
 * - `wrong_call`            — at least one well-formed call to a real action
 */
export const ABSTENTION_CLASSES = ['answered', 'asked_for_information', 'cut_off_or_empty', 'malformed_call', 'wrong_call'] as const;
export type AbstentionClass = (typeof ABSTENTION_CLASSES)[number];

/** The classes that are abstentions (no call at all). */
export const ABSTAINED: ReadonlySet<AbstentionClass> = new Set(['answered', 'asked_for_information']);

// A question mark that ends a sentence: followed by whitespace, a closing quote/bracket, or the end.
const QUESTION = /\?(?=\s|["'”’)\]]|$)/;

/** Does the text ask the user something (ends with or contains a question)? */
export function asksQuestion(text: string | null): boolean {
  return text !== null && QUESTION.test(text.trim());
}

/**
 * A reply that decided nothing: cut at the token limit (`finish_reason:
 * length`: 256 tokens of a story that stopped mid-sentence is not a
 * refusal to call a tool), or with no text at all. The one place this is
 * decided, for the abstention class and the reports.
 */
export function isCutOffOrEmpty(turn: Pick<ModelTurn, 'finish_reason' | 'text'> | undefined): boolean {
  if (turn === undefined) return true;
  return turn.finish_reason === 'length' || (turn.text ?? '').trim() === '';
}

/**
 * Classify a completed trial's behaviour against "no tool should be
 * called". `lastTurn` is the model's last reply (absent in older callers:
 * then only the text is judged).
 */
export function classifyAbstention(calls: readonly CallRecord[], finalText: string | null, lastTurn?: Pick<ModelTurn, 'finish_reason' | 'text'>): AbstentionClass {
  if (calls.length === 0) {
    if (isCutOffOrEmpty(lastTurn ?? { finish_reason: 'stop', text: finalText })) return 'cut_off_or_empty';
    return asksQuestion(finalText) ? 'asked_for_information' : 'answered';
  }
  return calls.every(isMalformed) ? 'malformed_call' : 'wrong_call';
}
