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
  return sha256({
    model: request.model,
    system: request.system,
    messages: request.messages,
    tools: request.tools,
    tool_choice: request.tool_choice,
  });
}

/** Hashes of the two halves of a request, to tell a changed surface from a changed task. */
export function requestPartHashes(request: ModelRequest): { tools_hash: string; messages_hash: string } {
  return {
    tools_hash: sha256({ tools: request.tools, tool_choice: request.tool_choice }),
    messages_hash: sha256({ model: request.model, system: request.system, messages: request.messages }),
  };
}
