import { ModelRequest, isToolDefinitionShape } from '../spec/index.ts';
import type { Actor, ModelMessage, ModelSettings, ResolvedSurface, Task, ToolDefinition } from '../spec/index.ts';
import { visiblePayload } from './visibility.ts';

/** The conversation a trial starts from: the task's messages, as written. */
export function initialMessages(task: Pick<Task, 'messages'>): ModelMessage[] {
  return task.messages.map((message): ModelMessage =>
    message.role === 'assistant'
      ? { role: 'assistant', content: message.content, tool_calls: [] }
      : { role: message.role, content: message.content },
  );
}

/**
 * One normalised request: the conversation so far and the surface's exact
 * tools payload (the same array every turn, so its hash is stable).
 *
 * Built directly rather than through `ModelRequest.parse`, which would copy
 * and re-validate the whole tools payload on every turn: the messages are
 * the runner's own (already normalised), and a loaded surface's payload is
 * normalised by the loader. A payload that is not (a hand-made surface
 * without `strict`, or with extra keys) still goes through the schema.
 */
export function buildRequest(options: {
  model: string;
  surface: ResolvedSurface;
  messages: readonly ModelMessage[];
  settings?: ModelSettings;
  /** The task's actor: with `visibility: by_permission` it sees only the tools it may use. */
  actor?: Pick<Actor, 'permissions'>;
}): ModelRequest {
  const tools = options.actor ? visiblePayload(options.surface, options.actor) : options.surface.payload;
  const request: ModelRequest = {
    model: options.model,
    system: options.surface.system ?? null,
    // A copy: the trial keeps appending to its conversation after this request is sent.
    messages: options.messages.slice(),
    tools: tools as ToolDefinition[],
    tool_choice: 'auto',
    settings: options.settings ?? {},
  };
  return tools.every(isToolDefinitionShape) ? request : ModelRequest.parse(request);
}
