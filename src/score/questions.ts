/**
 * Finding the questions in a model's answer, written the way chat models
 * write them: in markdown emphasis (`**Which ticket?**`), followed by more
 * punctuation (`Which one?!`), a closing quote or bracket, an emoji, inside a
 * list item or a heading. A `?` that is not a question mark of prose is
 * ignored: inside a code block, inline code, a URL (`?id=3`), or glued to the
 * next word (`a?b`).
 */

// Code and links first: a `?` there is syntax, not a question.
const FENCED_CODE = /(^|\n)[ \t]*(```|~~~)[^\n]*\n[\s\S]*?(\n[ \t]*\2[^\n]*(?=\n|$)|$)/g;
const INLINE_CODE = /`+[^`\n]*`+/g;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>()\]]+|\]\([^)\s]*\)/gi;

/**
 * A question mark of prose, at the start of the text tested: an ASCII `?` not
 * followed by a letter, digit or a character that continues a query string
 * or path; a full-width `？` always (CJK text has no spaces after it).
 */
const QUESTION_MARK = /^(?:[？﹖]|\?(?![\p{L}\p{N}=&/%]))/u;

/** A dot after these ends no sentence ("Which ticket, e.g. T-102?" is one question). */
const ABBREVIATION = /(?:^|[^\p{L}])(?:e\.g|i\.e|etc|vs|cf|approx|Mr|Mrs|Ms|Dr|St|No)$/iu;

/** Text before a question mark ends in a letter or digit (spaces, emphasis, quotes and brackets aside). */
const CLOSES_WORDS = /[\p{L}\p{N}][\s*_~'"”’)\]]*$/u;

/** A sentence ends at `.`, `!` or `。` followed by a space or the end (not "e.g.T"), or at a line break. */
const SENTENCE_END = /^(?:[.!。](?=\s|$)|\n)/u;

/** The text with code blocks, inline code and URLs replaced by a space. */
function prose(text: string): string {
  return text.replace(FENCED_CODE, '$1 ').replace(INLINE_CODE, ' ').replace(URL, ' ');
}

/**
 * Each question in the text: the sentence that ends at a prose question mark
 * (from the previous sentence end or line break), with markdown markers
 * (`*`, `_`, `#`, `>`, list bullets) left in — matching reads words, not
 * markup. Empty when the text asks nothing.
 */
export function questionsIn(text: string): string[] {
  const body = prose(text);
  const questions: string[] = [];
  let start = 0;
  for (let index = 0; index < body.length; index += 1) {
    const here = body.slice(index, index + 2);
    if (QUESTION_MARK.test(here)) {
      const sentence = body.slice(start, index + 1).trim();
      // The mark must close words: "Rate: ?" or a lone "?" (a placeholder, a table cell) asks nothing.
      if (CLOSES_WORDS.test(body.slice(start, index))) questions.push(sentence);
      start = index + 1;
    } else if (SENTENCE_END.test(here) && !ABBREVIATION.test(body.slice(Math.max(0, index - 8), index))) {
      start = index + 1;
    }
  }
  return questions;
}
