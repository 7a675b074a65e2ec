/** Shared HTTP robustness for live adapters: retries, backoff, timeouts, rate and concurrency caps, redaction. */
export {
  withRetries,
  backoffDelay,
  retryWarnings,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryOptions,
  type RetryOutcome,
  type RetryNote,
} from './retry.ts';
export { classifyFailure, isRetryableStatus, type AttemptFailure } from './classify.ts';
export { parseRetryAfter, readHeader, type HeaderSource } from './retry-after.ts';
export { createRequestGate, type RequestGate, type RequestGateOptions } from './request-gate.ts';
export { redactSecrets, REDACTED } from './redact.ts';
export { abortableSleep } from './sleep.ts';
export { toWireName, type WireNames, createWireNames } from './wire-names.ts';
export { normaliseFinishReason } from './finish-reason.ts';
export type { LiveProviderOptions } from './live-options.ts';
