/**
 * A scratch project (project-basic's notes domain) whose config points a
 * provider preset at a local fake server, plus one must-call task per fault.
 * The fake model reads `fault:NAME` from the task's user message and misbehaves
 * accordingly, so one `toolmark run` exercises every fault at once.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FakeReply, RecordedRequest } from '../providers/fake-server.ts';
import { materialize } from '../load/materialize.ts';

export const KEY_VARIABLE = 'FAKE_PROVIDER_KEY';

/** A chat.completion body with text or tool calls (raw argument strings). */
export function completion(content: string | null, calls: { name: string; arguments: string }[] = []): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        finish_reason: calls.length ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content,
          tool_calls: calls.length
            ? calls.map((call, index) => ({ id: `call_${index}`, type: 'function', function: call }))
            : undefined,
        },
      },
    ],
    usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
  };
}

/** Which fault a request belongs to, and which turn of its trial it is. */
export function faultOf(request: RecordedRequest): { fault: string; turn: number } {
  const messages = (request.body?.messages ?? []) as { role: string; content?: unknown }[];
  const user = messages.find((message) => message.role === 'user');
  // OpenAI sends the text as a string, Anthropic as content blocks.
  const fault = /fault:([a-z0-9-]+)/.exec(JSON.stringify(user?.content ?? ''))?.[1] ?? 'none';
  return { fault, turn: messages.filter((message) => message.role === 'assistant').length };
}

/** A task for each fault; `limits` only where the fault needs them. */
export function faultTasks(faults: { name: string; limits?: { max_calls: number; max_turns: number } }[]): string {
  const tasks = faults.map(({ name, limits }) =>
    [
      `  - id: fault-${name}`,
      '    kind: must-call',
      '    messages:',
      `      - { role: user, content: "fault:${name} What does note N-1 say?" }`,
      '    actor: { permissions: [note:read] }',
      '    expect: { action: note.get, args: { note_id: N-1 } }',
      ...(limits ? [`    limits: { max_calls: ${limits.max_calls}, max_turns: ${limits.max_turns} }`] : []),
    ].join('\n'),
  );
  return `v: 1\ntasks:\n${tasks.join('\n')}\n`;
}

/**
 * Request timeout of the `fake` preset: long enough that no answering
 * request times out on a loaded machine (these machines are shared), short
 * enough that the hung-socket fault (2 attempts) ends in well under a minute.
 */
export const FAULT_TIMEOUT_MS = 15_000;

/** The scratch project, with a `fake` preset (key from KEY_VARIABLE, FAULT_TIMEOUT_MS, one retry). */
export async function faultProject(
  name: string,
  serverUrl: string,
  tasksYaml: string,
  options: { timeoutMs?: number; maxRetries?: number; earlyStop?: boolean; presetLines?: string[] } = {},
): Promise<{ root: string; dispose(): Promise<void> }> {
  const project = await materialize(null, name);
  await writeFile(
    path.join(project.root, 'toolmark.config.yaml'),
    [
      'v: 1',
      'domains: [notes]',
      // These projects fail on purpose, trial by trial: early stop only where a test asks for it.
      `run: { trials: 1, concurrency: 8, early_stop: ${options.earlyStop ?? false} }`,
      'providers:',
      '  fake:',
      '    kind: openai-compatible',
      '    model: fake-model',
      `    base_url: ${serverUrl}/v1`,
      `    api_key_env: ${KEY_VARIABLE}`,
      `    timeout_ms: ${options.timeoutMs ?? FAULT_TIMEOUT_MS}`,
      `    max_retries: ${options.maxRetries ?? 1}`,
      // Further preset fields, e.g. `rate_limit_retry_budget: 3`.
      ...(options.presetLines ?? []).map((line) => `    ${line}`),
      '',
    ].join('\n'),
  );
  await writeFile(path.join(project.root, 'suites/notes/tasks/faults.yaml'), tasksYaml);
  return project;
}

export type { FakeReply };
