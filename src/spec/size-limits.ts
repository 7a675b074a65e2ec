/**
 * Size limits on what a model or a tool sends back (docs/runner.md#size-limits):
 * a 20 MB response once made a 61 MB run folder (the text in the record, the
 * cassette, the reports). Past its limit a string is cut, and the cut is
 * recorded where the reports show it.
 */

/** Default cap on each string of a model turn (the text, each call's arguments, name and id): 1 MiB of UTF-8. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
/** Default cap on one tool result as the model sees it (its JSON text): 256 KiB of UTF-8. */
export const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 262_144;
/** The largest limit a config may set (1 GiB): beyond that a string could not be held anyway. */
export const MAX_SIZE_LIMIT_BYTES = 1_073_741_824;

/** UTF-8 length of `text`, counted only when it could be over `limit` (a UTF-16 unit is at most 3 bytes). */
export function overBytes(text: string, limit: number): number | null {
  if (text.length * 3 <= limit) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > limit ? bytes : null;
}

/** The longest prefix of `text` within `limit` UTF-8 bytes, never splitting a character. */
export function cutToBytes(text: string, limit: number): string {
  const head = Buffer.from(text, 'utf8').subarray(0, limit).toString('utf8');
  // A character cut in the middle decodes as U+FFFD; drop it rather than invent one.
  return head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
}
