/** Anything that can answer `get(name)` for a header: a fetch `Headers` or a plain record. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** Read one header, case-insensitively, from either shape. */
export function readHeader(headers: HeaderSource | undefined | null, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name);
  }
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return Array.isArray(value) ? (value[0] ?? null) : value;
  }
  return null;
}

/**
 * Milliseconds the server asked us to wait, or null when it did not say.
 * `retry-after-ms` (OpenAI, Anthropic) wins over `retry-after`, which may be
 * seconds (fractions allowed) or an HTTP date. A date in the past means 0.
 */
export function parseRetryAfter(headers: HeaderSource | undefined | null, now: number = Date.now()): number | null {
  const milliseconds = readHeader(headers, 'retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = readHeader(headers, 'retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return null;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
