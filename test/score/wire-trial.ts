/**
 * One trial of the shipped tickets domain through a live wire adapter: a
 * fake server on 127.0.0.1 speaks the OpenAI Chat Completions (or Anthropic
 * Messages) wire format from a script of model turns, the real SDK reads it,
 * the real runner and registry execute the calls, and the real graders score
 * the record. Tests write the expected verdicts by hand.
 */
import { fileURLToPath } from 'node:url';
import { createAnthropicProvider } from '../../providers/anthropic/index.ts';
import { createOpenAIProvider } from '../../providers/openai/index.ts';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { scoreTrial } from '../../src/score/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import { TaskSpec, type Task, type TrialRecord, type Verdict } from '../../src/spec/index.ts';
import { SENTINEL_KEY, type startFakeServer } from '../providers/fake-server.ts';

export type Wire = 'openai-chat' | 'anthropic';
export const WIRES: readonly Wire[] = ['openai-chat', 'anthropic'];

/** One scripted model turn: text and/or calls (exposed names, raw argument strings). */
export interface ScriptedTurn {
  text?: string | null;
  calls?: { name: string; arguments: string }[];
}

/** The model says `text` and calls nothing. */
export const says = (text: string): ScriptedTurn => ({ text });
/** The model calls these tools (arguments as objects, sent as JSON). */
export const calls = (...list: [name: string, args: unknown][]): ScriptedTurn => ({
  calls: list.map(([name, args]) => ({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })),
});

function chatBody(turn: ScriptedTurn): unknown {
  const toolCalls = turn.calls ?? [];
  return {
    id: 'chatcmpl-wire',
    object: 'chat.completion',
    created: 0,
    model: 'wire-model',
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          tool_calls: toolCalls.length
            ? toolCalls.map((call, index) => ({ id: `call_${index}`, type: 'function', function: call }))
            : undefined,
        },
      },
    ],
    usage: { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 },
  };
}

function anthropicBody(turn: ScriptedTurn, index: number): unknown {
  const toolCalls = turn.calls ?? [];
  return {
    id: `msg_wire_${index}`,
    type: 'message',
    role: 'assistant',
    model: 'wire-model',
    content: [
      ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
      // Anthropic carries arguments as an object: a raw string that is not one cannot travel this wire.
      ...toolCalls.map((call, position) => ({
        type: 'tool_use',
        id: `toolu_${index}_${position}`,
        name: call.name,
        input: JSON.parse(call.arguments),
      })),
    ],
    stop_reason: toolCalls.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 40, output_tokens: 8 },
  };
}

let tickets: Promise<LoadedDomain> | undefined;
/** The shipped tickets domain with its surfaces, loaded once per test file. */
export function ticketsDomain(): Promise<LoadedDomain> {
  tickets ??= loadProject(fileURLToPath(new URL('../../', import.meta.url)), { domains: ['tickets'] }).then(
    (project) => project.domains[0]!,
  );
  return tickets;
}

/** A task as a YAML file would give it (defaults filled by the schema). */
export function ticketTask(spec: Record<string, unknown>, split: Task['split'] = 'train'): Task {
  return {
    ...TaskSpec.parse({
      id: 'wire-task',
      messages: [{ role: 'user', content: 'help' }],
      actor: { permissions: ['ticket:read'] },
      ...spec,
    }),
    domain: 'tickets',
    split,
    source: { file: 'test', line: 1 },
  };
}

/**
 * Run `task` on `surface` with the model answering `turns` in order (the
 * last repeats), through `wire`, and score it.
 */
export async function wireTrial(
  startServer: typeof startFakeServer,
  options: { wire?: Wire; task: Task; turns: ScriptedTurn[]; surface?: string; trial?: number; model?: string },
): Promise<TrialRecord> {
  const wire = options.wire ?? 'openai-chat';
  const server = await startServer((_request, index) => {
    const turn = options.turns[Math.min(index, options.turns.length - 1)]!;
    return { body: wire === 'anthropic' ? anthropicBody(turn, index) : chatBody(turn) };
  });
  const provider =
    wire === 'anthropic'
      ? createAnthropicProvider({
          model: options.model ?? 'wire-model',
          apiKey: SENTINEL_KEY,
          baseURL: server.url,
          maxRetries: 0,
          timeoutMs: 30_000,
        })
      : createOpenAIProvider({
          model: options.model ?? 'wire-model',
          api: 'chat',
          apiKey: SENTINEL_KEY,
          baseURL: `${server.url}/v1`,
          maxRetries: 0,
          timeoutMs: 30_000,
        });
  const loaded = await ticketsDomain();
  const surface = loaded.surfaces.find((candidate) => candidate.id === (options.surface ?? 'typed-v2'))!;
  const record = await runTrial({
    provider,
    domain: loaded.domain,
    surface,
    task: options.task,
    trial: options.trial ?? 0,
    toolTime: 'simulated',
  });
  return scoreTrial(record, options.task, loaded.domain.actions);
}

/** The first verdict of a grader (undefined when it did not run). */
export function verdict(record: TrialRecord, grader: string): Verdict | undefined {
  return record.verdicts.find((candidate) => candidate.grader === grader);
}
