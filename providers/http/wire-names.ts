import { decodeToolName, encodeToolName, encodeToolNames } from '../../src/spec/tool-name.ts';

/** The name mapping for one request: exposed names ↔ names legal on the wire. */
export interface WireNames {
  /** Name to send for a tool (or for a past call in the history). */
  encode(name: string): string;
  /** Name to report for a call the model made; an invented name is kept as written. */
  decode(wireName: string): string;
}

/**
 * Build the per-request map from the request's tools. Names of tools in the
 * request are encoded (dots etc. → provider-legal); names not among them
 * (a call to a tool the model invented, echoed back in the history) are
 * sent exactly as the model wrote them, since that is what it produced.
 */
export function createWireNames(toolNames: readonly string[]): WireNames {
  const known = new Set(toolNames);
  const decoding = encodeToolNames(toolNames);
  return {
    encode: (name) => toWireName(name, known),
    decode: (wireName) => decodeToolName(wireName, decoding),
  };
}

export function toWireName(name: string, known: ReadonlySet<string>): string {
  return known.has(name) ? encodeToolName(name) : name;
}
