import type { CallRecord } from '../spec/index.ts';
import { isMalformed } from './call-view.ts';

/**
 * What the model did in a must-abstain task (SPEC §5). Only the native
 * tool-call channel counts: a malformed or hallucinated call is a call,
 * never an abstention.
 * - `answered`              — no call; a direct answer
 * - `asked_for_information` — no call; the text asks the user a question
 * - `malformed_call`        — only malformed calls (bad JSON, unknown tool or selector, schema failure)
 * - `wrong_call`            — at least one well-formed call to a real action
 */
export const ABSTENTION_CLASSES = ['answered', 'asked_for_information', 'malformed_call', 'wrong_call'] as const;
export type AbstentionClass = (typeof ABSTENTION_CLASSES)[number];

/** The classes that are abstentions (no call at all). */
export const ABSTAINED: ReadonlySet<AbstentionClass> = new Set(['answered', 'asked_for_information']);

// A question mark that ends a sentence: followed by whitespace, a closing quote/bracket, or the end.
const QUESTION = /\?(?=\s|["'”’)\]]|$)/;

/** Does the text ask the user something (ends with or contains a question)? */
export function asksQuestion(text: string | null): boolean {
  return text !== null && QUESTION.test(text.trim());
}

/** Classify a completed trial's behaviour against "no tool should be called". */
export function classifyAbstention(calls: readonly CallRecord[], finalText: string | null): AbstentionClass {
  if (calls.length === 0) return asksQuestion(finalText) ? 'asked_for_information' : 'answered';
  return calls.every(isMalformed) ? 'malformed_call' : 'wrong_call';
}
