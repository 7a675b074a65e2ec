/**
 * Issue 17 items 9 and 11 (and issue 21 item 4's early stop): failures that
 * will not heal stop the run with one message; a total retry budget for
 * 429s; a gate that says the run errored; preset values the code cannot
 * honour are honoured (requests_per_minute below 1) or refused (timeout_ms
 * beyond what a timer can wait).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createRequestGate } from '../../providers/http/request-gate.ts';
import { failureScope } from '../../providers/http/classify.ts';
import { withRetries } from '../../providers/http/retry.ts';
import { createRetryBudget } from '../../providers/http/retry-budget.ts';
import { abortableSleep } from '../../providers/http/sleep.ts';
import { evaluateGate } from '../../src/aggregate/index.ts';
import { createEarlyStop } from '../../src/solve/index.ts';
import { RUN_FILES } from '../../src/run-folder/index.ts';
import {
  GateConfig,
  ProjectConfig,
  ProviderError,
  RunSelection,
  RuntimeContract,
  TrialRecord,
} from '../../src/spec/index.ts';
import { trialRecord } from '../aggregate/runs.ts';
import { runCli } from '../helpers/cli.ts';
import { startFakeServer, SENTINEL_KEY } from '../providers/fake-server.ts';
import { KEY_VARIABLE, faultProject, faultTasks } from './fault-project.ts';

const errored = (message: string, scope?: 'run' | 'request', task = 't'): TrialRecord => {
  const record = trialRecord({ task, split: 'train', outcome: 'errored' });
  return { ...record, error: { status: 500, message, retryable: false, ...(scope ? { scope } : {}) } };
};

describe('createEarlyStop', () => {
  it('stops at once on a failure of scope run (bad key, unknown model, retry budget spent)', () => {
    const stop = createEarlyStop();
    const reason = stop.observe(errored('openai chat m: HTTP 401: Incorrect API key provided', 'run'));
    expect(reason?.message).toMatch(
      /^openai chat m: HTTP 401: Incorrect API key provided — this fails every request, so the run stopped$/,
    );
  });

  it('stops when the first 5 trials of a provider failed the same way (attempt counts aside), not at 4', () => {
    const stop = createEarlyStop(5);
    for (let index = 0; index < 4; index += 1)
      expect(stop.observe(errored(`x: HTTP 500: no grammar (after ${index + 2} attempts)`, 'request'))).toBeNull();
    expect(stop.observe(errored('x: HTTP 500: no grammar (after 2 attempts)', 'request'))?.message).toBe(
      'the first 5 trials all failed the same way: x: HTTP 500: no grammar',
    );
  });

  it('goes on once a trial completed, or the failures differ', () => {
    const healthy = createEarlyStop(2);
    expect(healthy.observe(trialRecord({ task: 'ok', split: 'train', outcome: 'pass' }))).toBeNull();
    expect(healthy.observe(errored('boom'))).toBeNull();
    expect(healthy.observe(errored('boom'))).toBeNull();
    const mixed = createEarlyStop(2);
    expect(mixed.observe(errored('a'))).toBeNull();
    expect(mixed.observe(errored('b'))).toBeNull();
    expect(mixed.observe(errored('b'))).toBeNull();
  });
});

describe('failureScope', () => {
  it.each([
    [401, 'Incorrect API key provided', 'run'],
    [403, 'forbidden', 'run'],
    [404, 'The model `gpt-9` does not exist or you do not have access to it.', 'run'],
    [400, 'model "tiny" not found, try pulling it first', 'run'],
    [400, "Invalid 'tools': schema not supported", 'request'],
    [422, 'unprocessable', 'request'],
    [500, 'boom', null],
    [429, 'slow down', null],
  ] as const)('HTTP %i %s → %s', (status, message, scope) => {
    expect(failureScope({ kind: 'http', status, message: `HTTP ${status}: ${message}` })).toBe(scope);
  });
});

describe('a retry budget for 429s in a row', () => {
  it('once spent, a 429 is not retried and fails the run (scope run); requests = budget + attempts', async () => {
    const budget = createRetryBudget(3);
    let calls = 0;
    const limited = () =>
      withRetries(
        async () => {
          calls += 1;
          throw Object.assign(new Error('429 Too Many Requests'), { status: 429, headers: {} });
        },
        { label: 'x', maxRetries: 10, sleep: async () => {}, rateLimitBudget: budget },
      );
    const thrown = (await limited().catch((error: unknown) => error)) as ProviderError;
    // 1 attempt + 3 retries from the budget, then the 4th retry is refused.
    expect(calls).toBe(4);
    expect(thrown.scope).toBe('run');
    expect(thrown.message).toMatch(
      /the 3 retries allowed after 429s in a row \(no request succeeding in between\) are spent/,
    );
    // The next request gets no retry at all.
    await limited().catch(() => {});
    expect(calls).toBe(5);
  });

  it('a success gives the budget back: 429s that heal never stop the run, however many', async () => {
    const budget = createRetryBudget(3);
    let calls = 0;
    // Every request is refused twice, then answered: 2 retries each, 40 requests, 80 retries in all,
    // far beyond a budget of 3 — but never more than 2 in a row without a success.
    const healing = (request: number) => {
      let attempts = 0;
      return withRetries(
        async () => {
          calls += 1;
          attempts += 1;
          if (attempts <= 2) throw Object.assign(new Error('429 Too Many Requests'), { status: 429, headers: {} });
          return request;
        },
        { label: 'x', maxRetries: 10, sleep: async () => {}, rateLimitBudget: budget },
      );
    };
    const answers: number[] = [];
    for (let request = 0; request < 40; request += 1) answers.push((await healing(request)).value);
    expect(answers).toEqual(Array.from({ length: 40 }, (_, index) => index));
    expect(calls).toBe(40 * 3);
    expect(budget.spent).toBe(0);
  });
});

describe('toolmark run stops early on a bad key', () => {
  it('401 on every request: one trial, one message, exit 2', { timeout: 120_000 }, async () => {
    const server = await startFakeServer(() => ({
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    }));
    const tasks = faultTasks(Array.from({ length: 20 }, (_, index) => ({ name: `n${index}` })));
    // A generous timeout: a loaded machine must not turn the one 401 into a timeout and a retry.
    const project = await faultProject('bad-key', server.url, tasks, { timeoutMs: 60_000, earlyStop: true });
    try {
      const out = mkdtempSync(path.join(tmpdir(), 'toolmark-bad-key-'));
      const result = await runCli(
        [
          'run',
          '--root',
          project.root,
          '--provider',
          'fake',
          '--task',
          'fault-*',
          '--surface',
          'typed',
          '--concurrency',
          '1',
          '--out',
          out,
          '--run-id',
          'k',
        ],
        { env: { [KEY_VARIABLE]: SENTINEL_KEY } },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /error: run stopped early \(fake:fake-model\): fake chat fake-model: HTTP 401: Incorrect API key provided — this fails every request, so the run stopped\. 19 planned trials not run/,
      );
      expect(server.requests).toHaveLength(1);
      const lines = readFileSync(path.join(out, 'k', RUN_FILES.trials), 'utf8')
        .trimEnd()
        .split('\n');
      expect(lines).toHaveLength(1);

      // The gate names the cause instead of blaming the split.
      const records = lines.map((line) => TrialRecord.parse(JSON.parse(line)));
      const result2 = await evaluateGate(
        { runId: 'k', records },
        { records: [trialRecord({ task: 'fault-n0', split: 'heldout', outcome: 'pass' })] },
        GateConfig.parse({}),
      );
      expect(result2.pass).toBe(false);
      expect(result2.checks[0]).toMatchObject({ threshold: 'run_errored', pass: false });
      expect(result2.checks[0]!.detail).toMatch(
        /^the run errored: all 1 trials are provider failures, nothing was scored \(fake chat fake-model: HTTP 401/,
      );
    } finally {
      await project.dispose();
      await server.close();
    }
  });
});

describe('toolmark run stops on endless 429s without retry-after, and gate says the run errored', () => {
  it(
    '429 on every request: the retry budget is spent, one message, exit 2; gate exits 1 naming the cause',
    { timeout: 180_000 },
    async () => {
      const server = await startFakeServer(() => ({
        status: 429,
        body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
      }));
      const tasks = faultTasks(Array.from({ length: 20 }, (_, index) => ({ name: `r${index}` })));
      // Per request up to 10 retries, but only 3 after 429s over the whole run; no retry-after, so backoff decides the waits.
      const project = await faultProject('endless-429', server.url, tasks, {
        timeoutMs: 60_000,
        maxRetries: 10,
        earlyStop: true,
        presetLines: ['rate_limit_retry_budget: 3'],
      });
      try {
        const out = mkdtempSync(path.join(tmpdir(), 'toolmark-429-'));
        const args = ['--root', project.root, '--task', 'fault-*', '--surface', 'typed', '--concurrency', '1'];
        const result = await runCli(['run', ...args, '--provider', 'fake', '--out', out, '--run-id', 'r'], {
          env: { [KEY_VARIABLE]: SENTINEL_KEY },
        });
        expect(result.code).toBe(2);
        // One trial: its first attempt and the 3 retries of the budget; the 4th 429 stops the run.
        expect(server.requests).toHaveLength(4);
        expect(result.stderr).toMatch(
          /error: run stopped early \(fake:fake-model\): fake chat fake-model: HTTP 429: Rate limit reached for requests \(after 4 attempts\); the 3 retries allowed after 429s in a row \(no request succeeding in between\) are spent — this fails every request, so the run stopped\. 19 planned trials not run/,
        );
        expect(
          result.stderr
            .trim()
            .split('\n')
            .filter((line) => line.startsWith('error:')),
        ).toHaveLength(1);

        // `toolmark gate` on that run (against itself as baseline): exit 1, the first failed check is run_errored with the cause, not the split.
        const gate = await runCli([
          'gate',
          path.join(out, 'r'),
          '--baseline',
          path.join(out, 'r'),
          '--root',
          project.root,
        ]);
        expect(gate.code).toBe(1);
        const failed = gate.stdout.split('\n').filter((line) => line.startsWith('FAIL'));
        expect(failed[0]).toMatch(
          /^FAIL  fake:fake-model typed: the run errored: all 1 trials are provider failures, nothing was scored \(fake chat fake-model: HTTP 429/,
        );
        expect(gate.stdout).not.toMatch(/FAIL .*task_success/);
      } finally {
        await project.dispose();
        await server.close();
      }
    },
  );
});

describe('preset values the schema accepts are honoured or refused', () => {
  it('requests_per_minute 0.5 admits one start every 120 s (fake clock), instead of none', async () => {
    let clock = 0;
    const starts: number[] = [];
    const gate = createRequestGate({
      requestsPerMinute: 0.5,
      now: () => clock,
      sleep: async (ms) => {
        await Promise.resolve();
        clock += ms;
      },
    });
    for (let index = 0; index < 3; index += 1) await gate.run(async () => void starts.push(clock));
    expect(starts).toEqual([0, 120_000, 240_000]);
  });

  it('a wait beyond one timer (2^31 − 1 ms) is slept in steps, not fired at once (fake timers)', async () => {
    vi.useFakeTimers();
    try {
      let woke = false;
      const sleeping = abortableSleep(2 ** 31 + 1_000).then(() => (woke = true));
      await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(1_001);
      await sleeping;
      expect(woke).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('every numeric field with a value the code cannot honour is refused, with the allowed range', () => {
    const preset = (fields: Record<string, unknown>) =>
      ProjectConfig.safeParse({ providers: { p: { kind: 'openai', model: 'm', ...fields } } });
    const message = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
      result.error?.issues.map((issue) => issue.message).join('; ');
    // One request a day is the slowest rate a timer can wait for; below it is refused.
    expect(preset({ requests_per_minute: 1 / 1440 }).success).toBe(true);
    expect(message(preset({ requests_per_minute: 0.0001 }))).toBe(
      'at least 1/1440 (one request a day): a slower rate waits longer than a timer can',
    );
    expect(message(preset({ max_retries: 21 }))).toBe('at most 20: more would only hide a server that is down');
    expect(preset({ rate_limit_retry_budget: 100_001 }).success).toBe(false);
    // A tool's own timeout is armed with setTimeout too (the registry's timeout boundary).
    expect(message(RuntimeContract.safeParse({ timeout_ms: 3_000_000_000 }))).toMatch(/^at most 86400000 ms \(24 h\)/);
    expect(RuntimeContract.safeParse({ retry: { transient: true, max_attempts: 101 } }).success).toBe(false);
    const selection = RunSelection.safeParse({ providers: ['replay'], trials: 100_001 });
    expect(selection.error?.issues.find((issue) => issue.path[0] === 'trials')?.message).toMatch(
      /^at most 100000 trials per task/,
    );
    expect(ProjectConfig.safeParse({ run: { trials: 100_001 } }).success).toBe(false);
  });

  it(
    'toolmark run refuses such a preset before any request: file:line:col, field, range; exit 2, nothing written',
    { timeout: 120_000 },
    async () => {
      const server = await startFakeServer(() => ({ body: {} }));
      const project = await faultProject('bad-numbers', server.url, faultTasks([{ name: 'x' }]), {
        timeoutMs: 3_000_000_000,
        presetLines: ['requests_per_minute: 0.0001'],
      });
      try {
        const out = path.join(mkdtempSync(path.join(tmpdir(), 'toolmark-bad-numbers-')), 'results');
        const result = await runCli(['run', '--root', project.root, '--provider', 'fake', '--out', out], {
          env: { [KEY_VARIABLE]: SENTINEL_KEY },
        });
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(
          /toolmark\.config\.yaml:\d+:\d+: providers\.fake\.timeout_ms: at most 86400000 ms \(24 h\): a longer timer cannot be armed/,
        );
        expect(result.stderr).toMatch(
          /toolmark\.config\.yaml:\d+:\d+: providers\.fake\.requests_per_minute: at least 1\/1440/,
        );
        expect(server.requests).toHaveLength(0);
        expect(existsSync(out)).toBe(false);
      } finally {
        await project.dispose();
        await server.close();
      }
    },
  );

  it('timeout_ms beyond 24 h is refused by the config schema (a timer cannot wait 3,000,000,000 ms)', () => {
    const parsed = ProjectConfig.safeParse({
      providers: { p: { kind: 'openai', model: 'm', timeout_ms: 3_000_000_000 } },
    });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/timeout_ms/);
    expect(
      ProjectConfig.safeParse({ providers: { p: { kind: 'openai', model: 'm', timeout_ms: 86_400_000 } } }).success,
    ).toBe(true);
  });
});
