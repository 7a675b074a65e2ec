/**
 * Credentials in a base URL (`http://user:password@host/v1`, a proxy with
 * basic auth in front of a local server). Node's fetch refuses a URL with
 * credentials, and its error quotes the whole URL, password included; so the
 * adapters send the URL without them and the credentials as an
 * `Authorization: Basic …` header, and every form of them joins the secrets
 * scrubbed from messages and turns. What is shown or stored (the manifest,
 * errors) is the URL without credentials.
 */

/** A base URL split for the adapters. */
export interface BaseUrl {
  /** The URL without credentials (what the SDK is given, and what may be shown). */
  url: string;
  /** `Authorization: Basic …` when the URL had credentials. */
  headers: Record<string, string>;
  /** Every form of the credentials, for redaction (empty when there were none). */
  secrets: string[];
}

/** Split the credentials off a base URL; a URL without them (or not a URL) comes back as it is. */
export function splitBaseUrl(raw: string): BaseUrl {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { url: raw, headers: {}, secrets: [] };
  }
  if (parsed.username === '' && parsed.password === '') return { url: raw, headers: {}, secrets: [] };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const token = Buffer.from(`${user}:${password}`).toString('base64');
  const secrets = [parsed.password, password, `${parsed.username}:${parsed.password}`, token];
  // A user without a password is often a token on its own (`https://TOKEN@host`).
  if (parsed.password === '') secrets.push(parsed.username, user);
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), headers: { Authorization: `Basic ${token}` }, secrets };
}

/** `scheme://user:password@` (the user alone may be a token too); group 1 is the scheme. */
export const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/gi;

/** Every URL inside `text` without its credentials (`http://user:pass@host` → `http://host`), for what is shown or stored. */
export function withoutCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1');
}
