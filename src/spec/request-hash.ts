import { createHash } from 'node:crypto';
import { canonicalJson } from './json.ts';
import type { ModelRequest } from './model.ts';

/** `sha256:<hex>` of a canonical JSON value. */
export function sha256(value: unknown): string {
  return `sha256:${createHash('sha256')
    .update(typeof value === 'string' ? value : canonicalJson(value))
    .digest('hex')}`;
}

/**
 * Canonical JSON of a part of a request, made once per object. A request's
 * tools payload is most of its bytes and the same array on every turn of a
 * surface; a trial's conversation only grows, each message an object that
 * is never changed once sent. So the hash of a request reuses the text of
 * the parts it shares with earlier requests. Keyed weakly by the objects
 * themselves: nothing is kept once a trial and its surface are gone, and no
 * caller has to pass precomputed text around. Requests are treated as
 * immutable once built (the runner and every adapter copy, never edit).
 */
const partJson = new WeakMap<object, string>();

function canonicalPart(value: unknown): string {
  if (value === null || typeof value !== 'object') return canonicalJson(value);
  let text = partJson.get(value);
  if (text === undefined) partJson.set(value, (text = canonicalJson(value)));
  return text;
}

/** The hash of each request object: the runner, pre-flight, replay and the recorder all ask for it, once hashed. */
const requestHashes = new WeakMap<ModelRequest, string>();

/**
 * The hash of a request equal part for part (the same objects) to one
 * hashed before, found without hashing. The pre-flight hashes each trial's
 * first request, and turn 0 of the trial builds the same request again: a
 * new object, but the same tools array and the same message objects (the
 * runner makes a task's starting messages once). Keyed weakly by the last
 * message, so an entry lives no longer than its conversation, and is
 * dropped once found again.
 */
interface SameParts {
  request: ModelRequest;
  hash: string;
}
const byLastMessage = new WeakMap<object, SameParts>();

function sameParts(a: ModelRequest, b: ModelRequest): boolean {
  if (
    a.tools !== b.tools ||
    a.model !== b.model ||
    a.system !== b.system ||
    a.tool_choice !== b.tool_choice ||
    a.tool_search !== b.tool_search ||
    a.messages.length !== b.messages.length
  )
    return false;
  for (let index = 0; index < a.messages.length; index += 1) if (a.messages[index] !== b.messages[index]) return false;
  return true;
}

/**
 * The cassette `request_hash`: model, system, messages, tool choice and the
 * exact tools payload. Replay compares it to refuse stale cassettes. The
 * text hashed is exactly canonicalJson of those fields (keys sorted,
 * undefined fields left out).
 */
export function requestHash(request: ModelRequest): string {
  const known = requestHashes.get(request);
  if (known !== undefined) return known;
  const last = request.messages.at(-1);
  const earlier = last === undefined ? undefined : byLastMessage.get(last);
  if (earlier !== undefined && sameParts(earlier.request, request)) {
    // Used once: the pre-flight's entry serves the task's first trial, then goes (100,000 distinct
    // tasks would otherwise keep 100,000 entries for the whole run; a task's later trials hash again).
    byLastMessage.delete(last!);
    requestHashes.set(request, earlier.hash);
    return earlier.hash;
  }
  const fields: [string, unknown][] = [
    ['messages', request.messages],
    ['model', request.model],
    ['system', request.system],
    ['tool_choice', request.tool_choice],
    // Absent (so left out) on every request but a native deferred one.
    ['tool_search', request.tool_search],
    ['tools', request.tools],
  ];
  let text = '';
  for (const [key, value] of fields) {
    if (value === undefined) continue;
    const json =
      key === 'tools'
        ? canonicalPart(value)
        : key === 'messages'
          ? `[${request.messages.map(canonicalPart).join(',')}]`
          : canonicalJson(value);
    text += `${text === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
  }
  const hash = sha256(`${text === '' ? '{' : text}}`);
  requestHashes.set(request, hash);
  if (last !== undefined) byLastMessage.set(last, { request, hash });
  return hash;
}

/** Hashes of the two halves of a request, to tell a changed surface from a changed task. */
export function requestPartHashes(request: ModelRequest): { tools_hash: string; messages_hash: string } {
  return {
    tools_hash: sha256({ tools: request.tools, tool_choice: request.tool_choice, tool_search: request.tool_search }),
    messages_hash: sha256({ model: request.model, system: request.system, messages: request.messages }),
  };
}
