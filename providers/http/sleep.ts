/** Longest delay one Node timer can wait (longer ones fire at once, with a TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Sleep that wakes early (rejecting with the signal's reason) when the signal
 * aborts. A wait beyond one timer's reach is slept in steps, so it is honoured
 * rather than turned into a busy loop.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  const step = Math.min(ms, MAX_TIMER_MS);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, step);
    signal?.addEventListener('abort', onAbort, { once: true });
  }).then(() => (ms > step ? abortableSleep(ms - step, signal) : undefined));
}
