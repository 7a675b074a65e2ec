import type { AskAbout, CallRecord, ModelTurn } from '../spec/index.ts';
import { compileLinearRegex, type LinearRegex } from '../spec/linear-regex.ts';
import { isMalformed } from './call-view.ts';
import { questionsIn } from './questions.ts';

/**
 * What the model did in a must-abstain task (SPEC §5). Only the native
 * tool-call channel counts: a malformed or hallucinated call is a call,
 * never an abstention.
 * - `answered`              — no call; a direct answer (or a question about something else than `ask_about`)
 * - `asked_for_information` — no call; the text asks the user a question (about `ask_about`, when the task says)
 * - `cut_off_or_empty`      — no call, but no answer either: the last reply was cut at the
 *                             token limit, or empty (not an abstention: nothing was decided)
 * - `malformed_call`        — only malformed calls (bad JSON, unknown tool or selector, schema failure)
 * - `wrong_call`            — at least one well-formed call to a real action
 */
export const ABSTENTION_CLASSES = [
  'answered',
  'asked_for_information',
  'cut_off_or_empty',
  'malformed_call',
  'wrong_call',
] as const;
export type AbstentionClass = (typeof ABSTENTION_CLASSES)[number];

/** The classes that are abstentions (no call at all). */
export const ABSTAINED: ReadonlySet<AbstentionClass> = new Set(['answered', 'asked_for_information']);

// Patterns come from task files; compile each once (case-insensitive, like the word list), on the linear-time engine.
const patterns = new Map<string, LinearRegex | null>();
function pattern(source: string): LinearRegex | null {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    const result = compileLinearRegex(source, { ignoreCase: true });
    compiled = 'regex' in result ? result.regex : null; // the loader rejects bad patterns; a stray one never matches
    patterns.set(source, compiled);
  }
  return compiled;
}

/** Is this question about what the task says must be asked (any listed word, or the pattern)? */
function isAbout(question: string, about: AskAbout): boolean {
  if (Array.isArray(about)) {
    const lower = question.toLowerCase();
    return about.some((word) => lower.includes(word.toLowerCase()));
  }
  return pattern(about.regex)?.test(question) ?? false;
}

/**
 * Does the text ask the user something? Any question (src/score/questions.ts)
 * counts, unless `about` is given: then one of its questions must mention
 * one of the words or match the pattern (so a closing "Anything else I can
 * help with?" is not asking for the missing ticket number).
 */
export function asksQuestion(text: string | null, about?: AskAbout): boolean {
  if (text === null) return false;
  const questions = questionsIn(text);
  return about === undefined ? questions.length > 0 : questions.some((question) => isAbout(question, about));
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
 * then only the text is judged); `about` is the task's `ask_about`.
 */
export function classifyAbstention(
  calls: readonly CallRecord[],
  finalText: string | null,
  lastTurn?: Pick<ModelTurn, 'finish_reason' | 'text'>,
  about?: AskAbout,
): AbstentionClass {
  if (calls.length === 0) {
    if (isCutOffOrEmpty(lastTurn ?? { finish_reason: 'stop', text: finalText })) return 'cut_off_or_empty';
    return asksQuestion(finalText, about) ? 'asked_for_information' : 'answered';
  }
  return calls.every(isMalformed) ? 'malformed_call' : 'wrong_call';
}
