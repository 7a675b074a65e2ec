/**
 * The forms a server may echo a known secret in, besides verbatim: a server
 * that base64s a header into a debug field (`Basic base64(user:KEY)`),
 * hex-dumps it, percent-encodes it into a URL, writes it as JSON unicode
 * escapes inside a tool call's arguments, or cuts it. redact.ts removes all
 * of them from every string of a model turn and from error messages.
 */

/** A run of at least this many characters of a secret is removed wherever it appears (docs/reliability.md §7). */
export const MIN_FRAGMENT_LENGTH = 12;

/** Secrets shorter than this are removed verbatim only: their encodings are short enough to occur by chance. */
const MIN_ENCODED_SECRET_LENGTH = 8;

/** The forms of a secret redact.ts looks for: whole (`exact`), and those also looked for in fragments (`cut`). */
export interface SecretForms {
  exact: string[];
  cut: string[];
}

/**
 * The secret and its transformed forms: every one is removed whole; the
 * secret, its base64 and its hex are also removed when cut (a truncated
 * blob). Percent-encoding and unicode escapes are matched whole only: a cut
 * of a few escaped characters could be ordinary escaped text.
 */
export function formsOfSecret(secret: string): SecretForms {
  const encoded = encodedForms(secret);
  return {
    exact: [secret, ...encoded],
    cut: [secret, ...encoded.filter((form) => /^[A-Za-z0-9+/_-]+$/.test(form))],
  };
}

/**
 * Every transformed form of `secret` to search for, longest first. Base64 is
 * given in both alphabets and for each of the three byte offsets the secret
 * can start at inside a larger encoded blob: only the characters that depend
 * on the secret's bytes alone (so `Basic base64(user:KEY)` is caught whatever
 * the user's length).
 */
export function encodedForms(secret: string): string[] {
  if (secret.length < MIN_ENCODED_SECRET_LENGTH) return [];
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset += 1) {
    const standard = base64Inside(bytes, offset);
    forms.add(standard);
    forms.add(standard.replaceAll('+', '-').replaceAll('/', '_'));
  }
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  forms.add(encodeURIComponent(secret));
  const everyByte = [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  forms.add(everyByte);
  forms.add(everyByte.toUpperCase());
  forms.add(JSON.stringify(secret).slice(1, -1));
  const unicode = [...secret]
    .map((character) => `\\u${character.codePointAt(0)!.toString(16).padStart(4, '0')}`)
    .join('');
  forms.add(unicode);
  forms.add(unicode.replace(/\\u([0-9a-f]{4})/g, (_, digits: string) => `\\u${digits.toUpperCase()}`));
  forms.delete(secret);
  return [...forms].filter((form) => form.length >= MIN_ENCODED_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** The base64 characters of `bytes` placed `offset` bytes into a stream: only those its own bits decide. */
function base64Inside(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
    .toString('base64')
    .replace(/=+$/, '');
  // Character i covers bits [6i, 6i + 6); the secret's bits are [8·offset, 8·(offset + length)).
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + bytes.length)) / 6);
  return encoded.slice(first, end);
}

/**
 * `text` with every run of MIN_FRAGMENT_LENGTH or more characters of
 * `secret` (a key or an encoded form of it) replaced by `mark` (a cut key is
 * still a key). Each window of the
 * secret is looked for; a hit is grown both ways while it still follows the
 * secret, so one mark covers the whole run.
 */
export function redactFragments(text: string, secret: string, mark: string): string {
  if (secret.length <= MIN_FRAGMENT_LENGTH) return text;
  let result = text;
  for (let start = 0; start + MIN_FRAGMENT_LENGTH <= secret.length; start += 1) {
    const window = secret.slice(start, start + MIN_FRAGMENT_LENGTH);
    let at = result.indexOf(window);
    while (at !== -1) {
      let from = at;
      let inSecret = start;
      while (from > 0 && inSecret > 0 && result[from - 1] === secret[inSecret - 1]) {
        from -= 1;
        inSecret -= 1;
      }
      let to = at + MIN_FRAGMENT_LENGTH;
      let inSecretEnd = start + MIN_FRAGMENT_LENGTH;
      while (to < result.length && inSecretEnd < secret.length && result[to] === secret[inSecretEnd]) {
        to += 1;
        inSecretEnd += 1;
      }
      result = `${result.slice(0, from)}${mark}${result.slice(to)}`;
      at = result.indexOf(window, from + mark.length);
    }
  }
  return result;
}
