import { createHash } from 'node:crypto';
import { canonicalJson } from './json.ts';
import type { ModelRequest } from './model.ts';

/** `sha256:<hex>` of a canonical JSON value. */
export function sha256(value: unknown): string {
  return `sha256:${createHash('sha256').update(typeof value === 'string' ? value : canonicalJson(value)).digest('hex')}`;
}

/**
 * The cassette `request_hash`: model, system, messages, tool choice and the
 * exact tools payload. Replay compares it to refuse stale cassettes.
 */
export function requestHash(request: ModelRequest): string {
  return requestHashWithTools(request, canonicalJson(request.tools));
}

/**
 * `requestHash(request)`, given `toolsJson = canonicalJson(request.tools)`
 * and optionally `messagesJson = canonicalJson(request.messages)`. The tools
 * payload is most of a request and the same on every turn of a surface, so
 * the runner makes its canonical JSON once per surface instead of once per
 * turn; a trial's messages only grow, so it canonicalises each message once.
 * The text hashed is exactly canonicalJson of the fields requestHash covers
 * (keys sorted, undefined fields left out).
 */
export function requestHashWithTools(request: ModelRequest, toolsJson: string, messagesJson?: string): string {
  const fields: [string, unknown][] = [
    ['messages', request.messages],
    ['model', request.model],
    ['system', request.system],
    ['tool_choice', request.tool_choice],
    ['tools', request.tools],
  ];
  let text = '';
  for (const [key, value] of fields) {
    if (value === undefined) continue;
    const json = key === 'tools' ? toolsJson : key === 'messages' && messagesJson !== undefined ? messagesJson : canonicalJson(value);
    text += `${text === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
  }
  return sha256(`${text === '' ? '{' : text}}`);
}

/** Hashes of the two halves of a request, to tell a changed surface from a changed task. */
export function requestPartHashes(request: ModelRequest): { tools_hash: string; messages_hash: string } {
  return {
    tools_hash: sha256({ tools: request.tools, tool_choice: request.tool_choice }),
    messages_hash: sha256({ model: request.model, system: request.system, messages: request.messages }),
  };
}
