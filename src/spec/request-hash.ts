import * as nodeCrypto from 'node:crypto';
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
 * The end of a request's canonical JSON — `,"tools":` and the tools
 * payload, then the closing brace — as UTF-8 bytes, made once per tools
 * array. The payload is most of a request's text and the same array on
 * every turn of a surface. Keyed weakly by the array: nothing is kept once
 * its surface is gone. Requests are treated as immutable once built (the
 * runner and every adapter copy, never edit).
 */
const toolsTail = new WeakMap<object, Buffer>();
const NO_TOOLS_TAIL = Buffer.from('}');

function canonicalToolsTail(tools: unknown): Buffer {
  if (tools === undefined) return NO_TOOLS_TAIL;
  if (tools === null || typeof tools !== 'object') return Buffer.from(`,"tools":${canonicalJson(tools)}}`, 'utf8');
  let bytes = toolsTail.get(tools);
  if (bytes === undefined) toolsTail.set(tools, (bytes = Buffer.from(`,"tools":${canonicalJson(tools)}}`, 'utf8')));
  return bytes;
}

/**
 * sha256 of `bytes` as hex, in one call where node has one (`crypto.hash`,
 * node ≥ 20.12; read from the namespace so older nodes still load this
 * module). A pre-flight and a replay hash a request each per trial, and
 * making a `Hash` object for each cost more than hashing its ~2 KB
 * (10,000 requests: ~55 ms against ~25 ms, cold).
 */
const hashOnce = (nodeCrypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'hex') => string }).hash;

function sha256Hex(bytes: Uint8Array): string {
  if (hashOnce !== undefined) return hashOnce('sha256', bytes, 'hex');
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Where a request's text is put together as UTF-8 to be hashed (grown when
 * a request does not fit). Hashing the string `head + tail` made V8 copy
 * the ~2 KB of both into one new string first, then node encode it again:
 * per replayed trial that was ~4 KB of garbage, a third of what hashing
 * allocated. Written here, the tools' part is one copy of cached bytes.
 */
let scratch = Buffer.allocUnsafe(16 * 1024);
const MESSAGES_OPEN = '{"messages":[';

/**
 * What was hashed last in a conversation, keyed weakly by the last message
 * of the request: the request (to tell a request made of the same parts),
 * its hash, and the canonical JSON of its messages (joined by commas,
 * without the brackets).
 *
 * Two savings, one record. The pre-flight hashes each trial's first
 * request, and turn 0 of the trial builds the same request again: a new
 * object, but the same tools array and the same message objects (the
 * runner makes a task's starting messages once), so the hash is found
 * without hashing (and again when replay asks for the same request). And a
 * conversation only grows, each message an object never changed once
 * sent, so turn k's text is turn k-1's plus the new messages.
 *
 * Why one record per conversation rather than the text per message: a
 * task's starting messages live as long as the run, so per-message texts
 * of 100,000 tasks stayed in memory to the end of the trials. A record is
 * dropped as soon as a later request of its conversation is hashed; what
 * is left at the end is one record per conversation whose objects are
 * garbage by then (and one per task whose trial stopped at turn 0).
 *
 * The text is kept as one flat string. Built by `+=`, it is a tree of
 * every piece it was made of; writing it into the bytes to hash flattens
 * it (V8 copies a concatenation into one string, in place, before encoding
 * it), so what is kept is that one string and the pieces are garbage at
 * once. Kept as a tree until the conversation's next turn, they were copied
 * by the young-generation collections of a replayed run, then promoted:
 * about a fifth of what survived the trials' scavenges (--trace-gc-nvp).
 */
interface Hashed {
  request: ModelRequest;
  hash: string;
  messagesText: string;
}
const byLastMessage = new WeakMap<object, Hashed>();

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
  return sameMessages(a.messages, b.messages, a.messages.length);
}

/** The first `count` messages of both are the same objects. */
function sameMessages(a: readonly unknown[], b: readonly unknown[], count: number): boolean {
  for (let index = 0; index < count; index += 1) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * The canonical JSON of `messages`, joined by commas: from the record of
 * the longest earlier request of the same conversation (which is then
 * dropped: the conversation moved on), the rest made here.
 */
function messagesText(messages: readonly unknown[]): string {
  let from = 0;
  let text = '';
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    const earlier = typeof message === 'object' && message !== null ? byLastMessage.get(message) : undefined;
    if (earlier === undefined) continue;
    const before = earlier.request.messages;
    if (before.length !== index + 1 || !sameMessages(before, messages, index)) continue;
    text = earlier.messagesText;
    from = index + 1;
    if (from < messages.length) byLastMessage.delete(message as object);
    break;
  }
  for (let index = from; index < messages.length; index += 1)
    text += `${index === 0 ? '' : ','}${canonicalJson(messages[index])}`;
  return text;
}

/**
 * Requests whose hash is asked for once, and never of a later turn of their
 * conversation (`askedOnce`): nothing is remembered of them.
 *
 * Why: a large run's pre-flight hashes the first request of every task, on
 * copies of the tasks (src/run/task-lifetime.ts), so what it would remember
 * is never found again. Remembered, each was a WeakMap entry with a young
 * key, and on Node 20 a scavenge keeps such an entry's value alive: the
 * record (the request, its conversation, its text) of all 100,000 tasks was
 * copied by scavenges, promoted, and held until a full collection.
 */
const ASKED_ONCE = Symbol('askedOnce');

/** Mark `request` as one whose hash is asked for once (see ASKED_ONCE), unseen by copies and JSON; returns it. */
export function askedOnce<T extends ModelRequest>(request: T): T {
  return Object.defineProperty(request, ASKED_ONCE, { value: true });
}

/**
 * The cassette `request_hash`: model, system, messages, tool choice and the
 * exact tools payload. Replay compares it to refuse stale cassettes. The
 * text hashed is exactly canonicalJson of those fields (keys sorted,
 * undefined fields left out).
 */
export function requestHash(request: ModelRequest): string {
  const last = request.messages.at(-1);
  const lastObject = typeof last === 'object' && last !== null ? last : undefined;
  const earlier = lastObject === undefined ? undefined : byLastMessage.get(lastObject);
  if (earlier !== undefined && (earlier.request === request || sameParts(earlier.request, request)))
    return earlier.hash;
  const built = messagesText(request.messages);
  // The canonical JSON of the hashed fields, keys in sorted order (messages, model, system, tool_choice,
  // tool_search, tools), undefined ones left out: the tools' part is made once per tools array.
  let rest = ']';
  if (request.model !== undefined) rest += `,"model":${canonicalJson(request.model)}`;
  if (request.system !== undefined) rest += `,"system":${canonicalJson(request.system)}`;
  if (request.tool_choice !== undefined) rest += `,"tool_choice":${canonicalJson(request.tool_choice)}`;
  // Absent (so left out) on every request but a native deferred one.
  if (request.tool_search !== undefined) rest += `,"tool_search":${canonicalJson(request.tool_search)}`;
  const tail = canonicalToolsTail(request.tools);
  // At most 3 bytes per UTF-16 unit.
  const most = MESSAGES_OPEN.length + 3 * (built.length + rest.length) + tail.length;
  if (most > scratch.length) scratch = Buffer.allocUnsafe(Math.max(most, 2 * scratch.length));
  let end = scratch.write(MESSAGES_OPEN, 0, 'latin1');
  end += scratch.write(built, end);
  end += scratch.write(rest, end);
  end += tail.copy(scratch, end);
  const hash = `sha256:${sha256Hex(scratch.subarray(0, end))}`;
  if (lastObject !== undefined && (request as ModelRequest & { [ASKED_ONCE]?: true })[ASKED_ONCE] !== true)
    byLastMessage.set(lastObject, { request, hash, messagesText: built });
  return hash;
}

/** Hashes of the two halves of a request, to tell a changed surface from a changed task. */
export function requestPartHashes(request: ModelRequest): { tools_hash: string; messages_hash: string } {
  return {
    tools_hash: sha256({ tools: request.tools, tool_choice: request.tool_choice, tool_search: request.tool_search }),
    messages_hash: sha256({ model: request.model, system: request.system, messages: request.messages }),
  };
}
