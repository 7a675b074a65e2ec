import { ModelRequest } from '../spec/index.ts';
import type { ModelMessage, ModelSettings, ResolvedSurface, Task } from '../spec/index.ts';

/** The conversation a trial starts from: the task's messages, as written. */
export function initialMessages(task: Pick<Task, 'messages'>): ModelMessage[] {
  return task.messages.map((message): ModelMessage =>
    message.role === 'assistant' ? { role: 'assistant', content: message.content, tool_calls: [] } : { role: message.role, content: message.content },
  );
}

/**
 * One normalised request: the conversation so far and the surface's exact
 * tools payload (the same array every turn, so its hash is stable).
 */
export function buildRequest(options: { model: string; surface: ResolvedSurface; messages: readonly ModelMessage[]; settings?: ModelSettings }): ModelRequest {
  return ModelRequest.parse({
    model: options.model,
    system: options.surface.system ?? null,
    messages: options.messages,
    tools: options.surface.payload,
    tool_choice: 'auto',
    settings: options.settings ?? {},
  });
}
