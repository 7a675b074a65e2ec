import Anthropic from '@anthropic-ai/sdk';
import { ProviderError } from '../../src/spec/errors.ts';
import type { ModelRequest, ModelTurn, ProposeOptions, Provider, ToolDefinition } from '../../src/spec/model.ts';
import { splitBaseUrl } from '../http/base-url.ts';
import { withRedactedTurns } from '../http/redact.ts';
import { createRequestGate, type RequestGate } from '../http/request-gate.ts';
import { retryWarnings, withRetries, type RetryOptions } from '../http/retry.ts';
import { createRetryBudget } from '../http/retry-budget.ts';
import { toolsWithoutKeywords } from '../http/schema-keywords.ts';
import { createWireNames } from '../http/wire-names.ts';
import type { LiveProviderOptions } from '../http/live-options.ts';
import { fromMessage, toAnthropicTools, toMessagesRequest } from './messages.ts';
import { ANTHROPIC_PAUSE_CONTINUATIONS, createUntilSettled } from './pause-turn.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Options of the Anthropic adapter: the shared live options (id defaults to `anthropic`). */
export interface AnthropicProviderOptions extends LiveProviderOptions {
  /** Continuations of a turn paused by a server tool loop (`pause_turn`) before it is scored as it stands (default 4). */
  pauseContinuations?: number;
}

export interface AnthropicProvider extends Provider {
  readonly gate: RequestGate;
  /**
   * Input tokens the tool definitions alone cost on `model`, from the
   * count-tokens API: count(with tools) − count(without), over the same
   * one-word conversation. Includes the tool-use preamble the API adds
   * whenever tools are present, which is a real cost of having tools.
   */
  countSchemaTokens(model: string, tools: readonly ToolDefinition[]): Promise<number>;
}

// count_tokens needs a conversation; the same fixed one is used on both sides of the difference.
const COUNT_PROBE = [{ role: 'user' as const, content: 'x' }];

/**
 * A live provider over the official `@anthropic-ai/sdk` Messages API. The
 * SDK's own retries are off; providers/http does retries, backoff,
 * timeouts and rate caps. The key is only ever handed to the SDK.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): AnthropicProvider {
  const timeoutMs = options.timeoutMs ?? 60_000;
  // Credentials in the URL travel as a Basic header instead (base-url.ts); `baseURL` is the URL without them.
  const endpoint = splitBaseUrl(options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL);
  const baseURL = endpoint.url;
  const secrets = [options.apiKey, ...endpoint.secrets];
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL,
    ...(endpoint.secrets.length > 0 ? { defaultHeaders: endpoint.headers } : {}),
    maxRetries: 0,
    // Set explicitly: our signal cuts each attempt, and an explicit timeout stops the SDK refusing large max_tokens.
    timeout: timeoutMs * 2 + 1_000,
    logLevel: 'warn',
  });
  const gate = createRequestGate({ concurrency: options.concurrency, requestsPerMinute: options.requestsPerMinute });
  const id = options.id ?? 'anthropic';
  const label = `${id} ${options.model}`;

  const rateLimitBudget = createRetryBudget(options.rateLimitRetryBudget);

  function retryOptions(signal?: AbortSignal, what = label, onRetry?: ProposeOptions['onRetry']): RetryOptions {
    return {
      ...options.retry,
      maxRetries: options.maxRetries,
      timeoutMs,
      label: what,
      secrets,
      gate,
      signal,
      random: options.random,
      rateLimitBudget,
      onRetry,
    };
  }

  async function propose(request: ModelRequest, proposeOptions: ProposeOptions = {}): Promise<ModelTurn> {
    const named = request.model ? request : { ...request, model: options.model };
    const effective = options.dropSchemaKeywords?.length
      ? { ...named, tools: toolsWithoutKeywords(named.tools, options.dropSchemaKeywords) }
      : named;
    const names = createWireNames(effective.tools.map((tool) => tool.name));
    const { body, warnings } = toMessagesRequest(effective, names, options.defaultMaxTokens);
    const settled = await createUntilSettled(
      body,
      (sent) =>
        withRetries(
          (signal) => client.messages.create(sent, { signal }),
          retryOptions(proposeOptions.signal, label, proposeOptions.onRetry),
        ),
      (value) => {
        // A 200 that is not a message is the server's failure, not a model that chose to say nothing.
        if (!value || typeof value !== 'object') {
          throw new ProviderError(`${label}: response is not a message (got ${JSON.stringify(value)})`, {
            status: null,
            retryable: false,
          });
        }
      },
      options.pauseContinuations ?? ANTHROPIC_PAUSE_CONTINUATIONS,
    );
    const turn = fromMessage(settled.message, names);
    return {
      ...turn,
      latency_ms: settled.latencyMs,
      warnings: [...warnings, ...retryWarnings(settled.retries), ...settled.warnings, ...turn.warnings],
    };
  }

  async function countSchemaTokens(model: string, tools: readonly ToolDefinition[]): Promise<number> {
    if (tools.length === 0) return 0;
    const names = createWireNames(tools.map((tool) => tool.name));
    const what = `${id} count_tokens ${model}`;
    const count = (withTools: boolean) =>
      withRetries(
        (signal) =>
          client.messages.countTokens(
            { model, messages: COUNT_PROBE, ...(withTools ? { tools: toAnthropicTools(tools, names) } : {}) },
            { signal },
          ),
        retryOptions(undefined, what),
      );
    const [withTools, without] = await Promise.all([count(true), count(false)]);
    return Math.max(0, withTools.value.input_tokens - without.value.input_tokens);
  }

  // Every string of every turn loses the key before anything records it (a server may echo it back).
  // The Messages API has its own tool search tool: deferred surfaces go natively (defer_loading + tool references).
  return withRedactedTurns(
    { id, model: options.model, baseURL, gate, propose, countSchemaTokens, toolSearch: 'anthropic' as const },
    secrets,
  );
}
