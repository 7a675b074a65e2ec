/**
 * Output-token caps sent when neither the task nor the config sets
 * `max_tokens` (docs/providers.md#default-max_tokens). Without one, a small
 * local model writes until its context is full — minutes per turn, then a
 * timeout — and a vendor API may allow tens of thousands of tokens.
 */

/** OpenAI's own APIs (and Anthropic's): room for a reasoning model's hidden tokens plus a call. */
export const VENDOR_DEFAULT_MAX_TOKENS = 4096;

/** OpenAI-compatible servers (llama.cpp, vLLM, Ollama): slow generation; a call or a short answer fits easily. */
export const COMPATIBLE_DEFAULT_MAX_TOKENS = 1024;
