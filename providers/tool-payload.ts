import type { ToolDefinition } from '../src/spec/model.ts';
import { toAnthropicTools } from './anthropic/messages.ts';
import { createWireNames } from './http/wire-names.ts';
import { toChatTools } from './openai/chat.ts';
import { toResponsesTools } from './openai/responses.ts';

/** The wire shapes a tools payload can be exported in: one per adapter family. */
export const PAYLOAD_FORMATS = ['openai', 'openai-responses', 'anthropic'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

/**
 * The exact `tools` array an adapter sends for a normalised payload, names
 * encoded as on the wire — the same functions the adapters call, so an
 * export can never drift from what a provider receives.
 */
export function providerToolsPayload(format: PayloadFormat, tools: readonly ToolDefinition[]): unknown[] {
  const names = createWireNames(tools.map((tool) => tool.name));
  switch (format) {
    case 'openai':
      return toChatTools(tools, names);
    case 'openai-responses':
      return toResponsesTools(tools, names);
    case 'anthropic':
      return toAnthropicTools(tools, names);
  }
}
