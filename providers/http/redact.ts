/**
 * Secrets must never reach a ProviderError message, a log line or a file the
 * run writes. Servers sometimes echo a key back in an error body ("Incorrect
 * API key provided: sk-…"), so messages are scrubbed before they leave the
 * adapter: the known keys verbatim, then anything shaped like a key or an
 * auth header.
 */

const KEY_PATTERNS: RegExp[] = [
  // OpenAI / Anthropic / OpenRouter style keys: sk-…, sk-ant-…, sk-proj-…, sk-or-v1-…
  /\bsk-[A-Za-z0-9_-]{6,}/g,
  // `api_key=…`, `x-api-key: …`, `"authorization": "Bearer …"` and friends.
  /\b(api[-_]?key|x-api-key|authorization|auth[-_]?token)("?\s*[:=]\s*"?)(?:Bearer\s+)?[^\s",;}]+/gi,
  // Bare bearer tokens anywhere else.
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
];

export const REDACTED = '[redacted]';

/** Replace every known secret and anything that looks like a key in `text`. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    // Very short strings would blank out ordinary words; real keys are long.
    if (secret.length >= 4) result = result.split(secret).join(REDACTED);
  }
  result = result.replace(KEY_PATTERNS[0]!, REDACTED);
  result = result.replace(
    KEY_PATTERNS[1]!,
    (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`,
  );
  result = result.replace(KEY_PATTERNS[2]!, `Bearer ${REDACTED}`);
  return result;
}
