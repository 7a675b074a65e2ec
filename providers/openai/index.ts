import OpenAI from 'openai';
import { ProviderError } from '../../src/spec/errors.ts';
import type { ModelRequest, ModelTurn, ProposeOptions, Provider } from '../../src/spec/model.ts';
import { createRequestGate, type RequestGate } from '../http/request-gate.ts';
import { splitBaseUrl } from '../http/base-url.ts';
import { redactSecrets, withRedactedTurns } from '../http/redact.ts';
import { retryWarnings, withRetries } from '../http/retry.ts';
import { createRetryBudget } from '../http/retry-budget.ts';
import { toolsWithoutKeywords } from '../http/schema-keywords.ts';
import { createWireNames } from '../http/wire-names.ts';
import type { LiveProviderOptions } from '../http/live-options.ts';
import { COMPATIBLE_DEFAULT_MAX_TOKENS, VENDOR_DEFAULT_MAX_TOKENS } from '../http/max-tokens.ts';
import { fromChatResponse, toChatRequest, type MaxTokensField } from './chat.ts';
import { fromResponsesResponse, responsesNames, toResponsesRequest } from './responses.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Options of the OpenAI adapter: the shared live options plus the API and the max-tokens field. */
export interface OpenAIProviderOptions extends LiveProviderOptions {
  /** `chat` (Chat Completions, the default) or `responses` (Responses API). */
  api?: 'chat' | 'responses';
  /**
   * Field for settings.max_tokens on Chat. Default `max_completion_tokens` for
   * api.openai.com (reasoning models refuse the old one) and `max_tokens` for
   * any other baseURL (what compatible servers understand).
   */
  maxTokensField?: MaxTokensField;
}

/** An OpenAI provider also exposes its gate, so callers and benchmarks can see queue depth. */
export interface OpenAIProvider extends Provider {
  readonly api: 'chat' | 'responses';
  readonly gate: RequestGate;
}

/**
 * A live provider over the official `openai` SDK. The SDK's own retries are
 * off (`maxRetries: 0`); retries, backoff, timeouts and rate caps are ours
 * (providers/http) so they are explicit and tested. The key is only ever
 * handed to the SDK, which sends it as a header.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): OpenAIProvider {
  const api = options.api ?? 'chat';
  // Credentials in the URL travel as a Basic header instead (base-url.ts); `baseURL` is the URL without them.
  const endpoint = splitBaseUrl(options.baseURL ?? OPENAI_DEFAULT_BASE_URL);
  const baseURL = endpoint.url;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const official = baseURL === OPENAI_DEFAULT_BASE_URL;
  const maxTokensField = options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens');
  const defaultMaxTokens =
    options.defaultMaxTokens ?? (official ? VENDOR_DEFAULT_MAX_TOKENS : COMPATIBLE_DEFAULT_MAX_TOKENS);
  const client = new OpenAI({
    apiKey: options.apiKey,
    // Explicit, so a stray OPENAI_BASE_URL cannot redirect a run the factory configured otherwise.
    baseURL,
    ...(endpoint.secrets.length > 0 ? { defaultHeaders: endpoint.headers } : {}),
    maxRetries: 0,
    // Our per-attempt signal cuts the request; the SDK's timer is only a backstop.
    timeout: timeoutMs * 2 + 1_000,
    logLevel: 'warn',
  });
  const gate = createRequestGate({ concurrency: options.concurrency, requestsPerMinute: options.requestsPerMinute });
  const id = options.id ?? 'openai';
  const label = `${id} ${api} ${options.model}`;
  const secrets = [options.apiKey, ...endpoint.secrets];
  const rateLimitBudget = createRetryBudget(options.rateLimitRetryBudget);

  async function propose(request: ModelRequest, proposeOptions: ProposeOptions = {}): Promise<ModelTurn> {
    // The request names the model; an empty one falls back to the provider's.
    if (!request.model) request = { ...request, model: options.model };
    if (options.dropSchemaKeywords?.length)
      request = { ...request, tools: toolsWithoutKeywords(request.tools, options.dropSchemaKeywords) };
    const names = createWireNames(request.tools.map((tool) => tool.name));
    const retryOptions = {
      ...options.retry,
      maxRetries: options.maxRetries,
      timeoutMs,
      label,
      secrets,
      gate,
      signal: proposeOptions.signal,
      random: options.random,
      rateLimitBudget,
      onRetry: proposeOptions.onRetry,
    };
    if (api === 'chat') {
      const { body, warnings } = toChatRequest(request, names, maxTokensField, defaultMaxTokens);
      const outcome = await withRetries((signal) => client.chat.completions.create(body, { signal }), retryOptions);
      // A 200 that is not a completion (null, no choices) is the server's failure, not a model that chose to say nothing.
      const value = outcome.value as unknown as { choices?: unknown } | null;
      if (!value || typeof value !== 'object' || !Array.isArray(value.choices) || value.choices.length === 0) {
        throw new ProviderError(
          `${label}: response is not a chat completion (${!value || typeof value !== 'object' ? `got ${JSON.stringify(value)}` : 'no choices'})`,
          { status: null, retryable: false },
        );
      }
      const turn = fromChatResponse(outcome.value, names);
      return {
        ...turn,
        latency_ms: outcome.latencyMs,
        warnings: [...warnings, ...retryWarnings(outcome.retries), ...turn.warnings],
      };
    }
    const { body, warnings } = toResponsesRequest(request, names, defaultMaxTokens);
    const outcome = await withRetries((signal) => client.responses.create(body, { signal }), retryOptions);
    if (!outcome.value || typeof outcome.value !== 'object') {
      throw new ProviderError(
        `${label}: response is not a Responses API object (got ${JSON.stringify(outcome.value)})`,
        { status: null, retryable: false },
      );
    }
    if (outcome.value.status === 'failed') {
      const reason = outcome.value.error?.message ?? 'no reason given';
      throw new ProviderError(`${label}: response failed: ${redactSecrets(reason, secrets)}`, {
        status: null,
        retryable: false,
      });
    }
    const turn = fromResponsesResponse(outcome.value, responsesNames(request, names));
    return {
      ...turn,
      latency_ms: outcome.latencyMs,
      warnings: [...warnings, ...retryWarnings(outcome.retries), ...turn.warnings],
    };
  }

  // Every string of every turn loses the key before anything records it (a server may echo it back).
  // The Responses API has a tool search tool (deferred functions); Chat Completions has none, so the runner emulates it.
  return withRedactedTurns(
    {
      id,
      model: options.model,
      baseURL,
      api,
      gate,
      propose,
      ...(api === 'responses' ? { toolSearch: 'openai' as const } : {}),
    },
    secrets,
  );
}
