import { ModelTurn, ProviderError } from '../src/spec/index.ts';
import type { ModelRequest, ProposeOptions, Provider, TurnKey } from '../src/spec/index.ts';

/** What a script gives for one turn: a ModelTurn with defaults filled in (only `text` is needed). */
export type ScriptedTurn = Partial<ModelTurn>;

/** A function script answers each request by its content and position (deterministic under concurrency). */
export type ScriptFunction = (request: ModelRequest, key: TurnKey | undefined) => ScriptedTurn | Promise<ScriptedTurn>;

/** One request the scripted provider received. */
export interface ScriptedCall {
  request: ModelRequest;
  key: TurnKey | undefined;
}

/**
 * A fake provider for tests: answers from a queue of turns or from a
 * function, and records every request it got (deep-copied, so later
 * mutation by the caller cannot rewrite history).
 */
export class ScriptedProvider implements Provider {
  readonly id: string;
  readonly offline = true;
  readonly model: string;
  readonly requests: ScriptedCall[] = [];
  readonly #queue: ScriptedTurn[] | null;
  readonly #respond: ScriptFunction | null;

  constructor(script: ScriptedTurn[] | ScriptFunction, options: { id?: string; model?: string } = {}) {
    this.id = options.id ?? 'scripted';
    this.model = options.model ?? 'scripted';
    this.#queue = Array.isArray(script) ? [...script] : null;
    this.#respond = typeof script === 'function' ? script : null;
  }

  async propose(request: ModelRequest, options: ProposeOptions = {}): Promise<ModelTurn> {
    this.requests.push({ request: structuredClone(request), key: options.key ? { ...options.key } : undefined });
    let turn: ScriptedTurn | undefined;
    if (this.#respond) turn = await this.#respond(request, options.key);
    else turn = this.#queue!.shift();
    if (turn === undefined)
      throw new ProviderError('scripted provider: the script has no more turns', { retryable: false });
    return ModelTurn.parse({ text: null, ...structuredClone(turn) });
  }
}

/** Shorthand for a scripted turn with one tool call (arguments given as an object or a raw string). */
export function callTurn(name: string, args: unknown, id = 'c1'): ScriptedTurn {
  return {
    text: null,
    tool_calls: [{ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
    finish_reason: 'tool_calls',
  };
}

/** Shorthand for a scripted turn that answers in text. */
export function textTurn(text: string): ScriptedTurn {
  return { text, tool_calls: [] };
}
