import { ModelRequest, askedOnce, isToolDefinitionShape } from '../spec/index.ts';
import type {
  ModelMessage,
  ModelSettings,
  NativeSearch,
  NativeToolSearchOption,
  ResolvedSurface,
  Task,
  ToolDefinition,
  Actor,
} from '../spec/index.ts';
import { requestTools } from './tool-search.ts';
import { visibleTools } from './visibility.ts';

/**
 * The normalised messages of each task, made once: the pre-flight and every
 * trial of the task start from the same message objects, so a request's
 * hash reuses their canonical text and the pre-flight's hash of the first
 * request is found again at turn 0 (src/spec/request-hash.ts). Messages
 * are never changed once made (requests are immutable; adapters copy).
 */
const startingMessages = new WeakMap<Pick<Task, 'messages'>, readonly ModelMessage[]>();

/**
 * The conversation a trial starts from: the task's messages, as written (a
 * new array of shared messages). `remember: false` (a task copied for one
 * pass: the pre-flight of a large run) makes them without keeping them by
 * the task (src/spec/request-hash.ts, `askedOnce`, says why).
 */
export function initialMessages(
  task: Pick<Task, 'messages'>,
  { remember = true }: { remember?: boolean } = {},
): ModelMessage[] {
  let messages = startingMessages.get(task);
  if (messages === undefined) {
    const made = task.messages.map((message): ModelMessage =>
      message.role === 'assistant'
        ? { role: 'assistant', content: message.content, tool_calls: [] }
        : { role: message.role, content: message.content },
    );
    if (!remember) return made;
    startingMessages.set(task, (messages = made));
  }
  return messages.slice();
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
  /** A deferred surface's tools for this turn (tool-search.ts `requestTools`); default: the surface's first request. */
  tools?: { tools: ToolDefinition[]; tool_search?: NativeToolSearchOption };
  /** The provider's own tool search, if it has one (only read when `tools` is not given). */
  native?: NativeSearch | null;
  /** The task's actor: with `visibility: by_permission` it is sent only the tools it may use. */
  actor?: Pick<Actor, 'permissions'>;
  /** Its hash is asked for once, never of a later turn (a large run's pre-flight): nothing of it is remembered. */
  askedOnce?: boolean;
}): ModelRequest {
  const deferred =
    options.tools ?? (options.surface.loading ? requestTools(options.surface, { native: options.native }) : null);
  // With `visibility: by_permission`, the actor sees only the tools it may use (visibility.ts).
  const tools = visibleTools(options.surface, deferred?.tools ?? options.surface.payload, options.actor);
  const request: ModelRequest = {
    model: options.model,
    system: options.surface.system ?? null,
    // A copy: the trial keeps appending to its conversation after this request is sent.
    messages: options.messages.slice(),
    tools,
    tool_choice: 'auto',
    settings: options.settings ?? {},
  };
  // Only a native deferred request has it: other requests (and their hashes) are as before.
  if (deferred?.tool_search) request.tool_search = deferred.tool_search;
  const built = normalTools(tools) ? request : ModelRequest.parse(request);
  return options.askedOnce ? askedOnce(built) : built;
}

/**
 * Tools arrays already found normalised. A request sends the same array
 * every turn (a surface's payload, or its per-actor filtered copy), and a
 * loaded surface is never changed, so each array is checked once rather
 * than at every turn of every trial.
 */
const normalised = new WeakSet<readonly ToolDefinition[]>();

function normalTools(tools: readonly ToolDefinition[]): boolean {
  if (normalised.has(tools)) return true;
  if (!tools.every(isToolDefinitionShape)) return false;
  normalised.add(tools);
  return true;
}
