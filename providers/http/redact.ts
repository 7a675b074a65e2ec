/**
 * Secrets must never reach a ProviderError message, a log line or a file the
 * run writes. Servers sometimes echo a key back in an error body ("Incorrect
 * API key provided: sk-…"), so messages are scrubbed before they leave the
 * adapter: the known keys verbatim, then anything shaped like a key, an auth
 * header or a URL with credentials. A server may also echo the key inside a
 * successful answer (the text, a tool call, a refusal): every string of a
 * model turn loses the known keys before the turn leaves the adapter
 * (`withRedactedTurns`) — verbatim, in the encodings a server may echo them
 * in (base64, hex, percent-encoding, JSON escapes) and as a run of 12 or
 * more of their characters (secret-forms.ts).
 */
import { ProviderError } from '../../src/spec/errors.ts';
import { URL_CREDENTIALS } from './base-url.ts';
import type { ModelTurn, Provider } from '../../src/spec/model.ts';
import { formsOfSecret, redactFragments, type SecretForms } from './secret-forms.ts';

const KEY_PATTERNS: RegExp[] = [
  // OpenAI / Anthropic / OpenRouter style keys: sk-…, sk-ant-…, sk-proj-…, sk-or-v1-…
  /\bsk-[A-Za-z0-9_-]{6,}/g,
  // `api_key=…`, `x-api-key: …`, `"authorization": "Bearer …"` and friends.
  /\b(api[-_]?key|x-api-key|authorization|auth[-_]?token)("?\s*[:=]\s*"?)(?:Bearer\s+|Basic\s+)?[^\s",;}]+/gi,
  // Bare bearer tokens anywhere else.
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
  // Credentials in a URL: `http://user:password@host`.
  URL_CREDENTIALS,
];

export const REDACTED = '[redacted]';

// The encoded forms of each secret, computed once: every string of every turn is searched for them.
// A pure memo keyed by the secret; a process holds a handful of keys.
const secretForms = new Map<string, SecretForms>();

function formsOf(secret: string): SecretForms {
  let forms = secretForms.get(secret);
  if (!forms) secretForms.set(secret, (forms = formsOfSecret(secret)));
  return forms;
}

/**
 * Replace every known secret in `text`: verbatim, encoded, or a long
 * fragment of it (nothing else: model text keeps its own words).
 */
export function redactKnown(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    // Very short strings would blank out ordinary words; real keys are long.
    if (secret.length < 4) continue;
    const forms = formsOf(secret);
    for (const form of forms.exact) if (result.includes(form)) result = result.split(form).join(REDACTED);
    for (const form of forms.cut) result = redactFragments(result, form, REDACTED);
  }
  return result;
}

/** Replace every known secret and anything that looks like a key in `text`. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = redactKnown(text, secrets);
  result = result.replace(KEY_PATTERNS[0]!, REDACTED);
  result = result.replace(
    KEY_PATTERNS[1]!,
    (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`,
  );
  result = result.replace(KEY_PATTERNS[2]!, `Bearer ${REDACTED}`);
  result = result.replace(KEY_PATTERNS[3]!, (_match, scheme: string) => `${scheme}${REDACTED}@`);
  return result;
}

/** `value` with the known secrets removed from every string in it, at any depth (a new value; the input is kept). */
export function redactStrings<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redactKnown(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, secrets)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) copy[name] = redactStrings(item, secrets);
    return copy as T;
  }
  return value;
}

/**
 * The provider with every turn it returns scrubbed of `secrets` (text, tool
 * call ids, names and arguments, finish reason, warnings — every string),
 * and every error it throws redacted, so whatever wraps it (the recorder,
 * the trial loop, the reports) never holds a key. Arguments stay valid JSON:
 * a key is never a JSON escape.
 */
export function withRedactedTurns<P extends Provider>(provider: P, secrets: readonly string[]): P {
  const known = secrets.filter((secret) => secret.length >= 4);
  if (known.length === 0) return provider;
  const propose: Provider['propose'] = async (request, options) => {
    try {
      return redactStrings<ModelTurn>(await provider.propose(request, options), known);
    } catch (error) {
      // An abort rethrows the caller's own reason, untouched; a ProviderError may quote what the server sent.
      if (error instanceof ProviderError) error.message = redactSecrets(error.message, known);
      throw error;
    }
  };
  return { ...provider, propose };
}
