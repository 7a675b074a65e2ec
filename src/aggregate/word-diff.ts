import type { WordDiffPart } from '../spec/index.ts';

/** Longest texts (in words) diffed word by word; longer ones are shown as replaced whole. */
const MAX_TOKENS = 1_500;

/** Words and the whitespace between them, so joining the tokens gives the text back. */
function tokens(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

function push(parts: WordDiffPart[], op: WordDiffPart['op'], text: string): void {
  const last = parts[parts.length - 1];
  if (last && last.op === op) last.text += text;
  else parts.push({ op, text });
}

/**
 * A word-level diff of two texts (longest common subsequence of words and
 * whitespace runs). Joining the `same` and `del` parts gives `before`;
 * `same` and `add` give `after`. Adjacent parts of one kind are merged.
 */
export function wordDiff(before: string, after: string): WordDiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  const parts: WordDiffPart[] = [];
  if (a.length > MAX_TOKENS || b.length > MAX_TOKENS) {
    if (before) push(parts, 'del', before);
    if (after) push(parts, 'add', after);
    return parts;
  }
  // lengths[i][j]: LCS length of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      push(parts, 'same', a[i]!);
      i += 1;
      j += 1;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) push(parts, 'del', a[i++]!);
    else push(parts, 'add', b[j++]!);
  }
  while (i < a.length) push(parts, 'del', a[i++]!);
  while (j < b.length) push(parts, 'add', b[j++]!);
  return regroup(parts);
}

/**
 * Reads better: a lone space kept between two changes joins them, and each
 * stretch of changes becomes one deletion followed by one addition
 * ("~~a b~~ **c d**", not "~~a~~ **c** ~~b~~ **d**").
 */
function regroup(parts: readonly WordDiffPart[]): WordDiffPart[] {
  const out: WordDiffPart[] = [];
  let deleted = '';
  let added = '';
  const flush = () => {
    if (deleted) out.push({ op: 'del', text: deleted });
    if (added) out.push({ op: 'add', text: added });
    deleted = '';
    added = '';
  };
  parts.forEach((part, index) => {
    const between =
      index > 0 && index < parts.length - 1 && parts[index - 1]!.op !== 'same' && parts[index + 1]!.op !== 'same';
    if (part.op === 'same' && between && /^\s+$/.test(part.text)) {
      deleted += part.text;
      added += part.text;
    } else if (part.op === 'del') deleted += part.text;
    else if (part.op === 'add') added += part.text;
    else {
      flush();
      out.push(part);
    }
  });
  flush();
  return out;
}
