import { encode } from 'gpt-tokenizer/encoding/o200k_base';

/** Bytes and o200k tokens of a payload serialised as compact UTF-8 JSON (SPEC §5). */
export interface SchemaCost {
  bytes: number;
  tokens: number;
}

export function schemaCost(payload: unknown): SchemaCost {
  const text = JSON.stringify(payload);
  return { bytes: Buffer.byteLength(text, 'utf8'), tokens: encode(text).length };
}
