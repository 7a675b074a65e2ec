/** The size of each buffer `utf8Chunks` fills. */
const CHUNK_BYTES = 1 << 20;

/**
 * `pieces` encoded as UTF-8 into buffers of ~1 MiB, filled one after the
 * other: the same bytes as `Buffer.from(pieces.join(''))` (when no piece
 * ends in half a surrogate pair: JSON text never does), without the joined
 * string or its copies. For a small run's embedded trials (~4 MB at
 * 10,000 trials, page.ts): one JSON.stringify of the whole list came back
 * as a rope of pieces, flattened into a fresh copy by the escape's search,
 * copied again with the text around it, then encoded into a fresh buffer —
 * ~160 ms of the reports' main thread on this host, where memory touched
 * for the first time costs ~5 ms a megabyte; trial by trial into these
 * buffers ~85 ms.
 */
export function utf8Chunks(pieces: Iterable<string>): Buffer[] {
  const chunks: Buffer[] = [];
  let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (const piece of pieces) {
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, 4).
    if (used + piece.length * 3 > buffer.length) {
      if (used > 0) chunks.push(buffer.subarray(0, used));
      buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, piece.length * 3));
      used = 0;
    }
    used += buffer.write(piece, used, 'utf8');
  }
  if (used > 0) chunks.push(buffer.subarray(0, used));
  return chunks;
}
