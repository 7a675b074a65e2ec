import { ToolEnvironmentError, ToolError, toolError } from '../spec/index.ts';
import type {
  ActionSpec,
  Actor,
  Approval,
  JsonSchema,
  RuntimeContract,
  SideEffect,
  ToolCall,
  ToolResult,
} from '../spec/index.ts';
import { actionOf, resolveContract } from './contract.ts';
import { LazyAbortController, raceBoundary, withKeyLock } from './boundary.ts';
import { createHandlerContext } from './handler-context.ts';
import { SimulatedCallTime } from './tool-time.ts';
import { isHandlerFailure } from './fail.ts';
import { approvalFingerprint } from './fingerprint.ts';
import { conflictOf, type HeldClaim, inProgressOf, keyOf, replayOf, settleClaim } from './idempotency.ts';
import { callUserCode } from './user-code-marker.ts';
import type { ReceiptStore } from './receipt-store.ts';
import { toolSchemaOf, type ToolSchema, type Validation, type Violation } from './schema/index.ts';
import type { HandlerContext, ToolSpec } from './tool-spec.ts';

/** Everything one call needs besides the call itself. */
export interface InvokeContext<State> {
  state: State;
  actor: Actor;
  /** Approvals granted so far (each bound to tool name + argument fingerprint). */
  approvals: readonly Approval[];
  /** The handler's executed side effects are pushed here. */
  effects: SideEffect[];
  receipts: ReceiptStore;
  /** Cancels the call from outside (e.g. the run is stopping). */
  signal?: AbortSignal;
  /**
   * Run the call on simulated time (tool-time.ts): the handler's sleeps
   * advance a clock instead of waiting, and the timeout falls where it would
   * in real time. The call's simulated duration is written to `elapsedMs`.
   */
  simulatedTime?: { elapsedMs: number };
  /** Who the call is for (a trial): named if its user code blocks the run (user-code-marker.ts). */
  owner?: unknown;
  /**
   * The caller has just run `checkInput` on this tool and this very
   * arguments object, and nothing has changed it since: that validation is
   * used instead of a second one (step 2).
   */
  inputChecked?: boolean;
}

/** The typed dispatcher (SPEC §4). */
export interface Registry<State> {
  has(name: string): boolean;
  get(name: string): ToolSpec<State> | undefined;
  /** The contract enforced for a tool (its action's policy, its own timeout and retry), or undefined for an unknown tool. */
  contract(name: string): RuntimeContract | undefined;
  names(): string[];
  /** Runs the nine steps of SPEC §4 in order. Never throws for anything a model or handler can cause. */
  invoke(call: ToolCall, context: InvokeContext<State>): Promise<ToolResult>;
  /** JSON Schema of a tool's input (the seam's `jsonSchema`, a copy to change). Throws for an unknown tool (a programming error). */
  inputSchema(name: string): JsonSchema;
  /** Check arguments against the input schema without running anything. */
  /** …`owner` as in InvokeContext: the schema is user code, named if it blocks the run. */
  checkInput(name: string, args: unknown, owner?: unknown): { ok: true } | { ok: false; violations: Violation[] };
}

/** A tool as the pipeline runs it: schemas adapted to the seam, contract resolved. */
interface RegistryTool<State> {
  name: string;
  spec: ToolSpec<State>;
  input: ToolSchema;
  output: ToolSchema;
  runtime: RuntimeContract;
  /** How each part of the tool is named as user code (user-code-marker.ts), made once, not per call. */
  userCode: { handler: string; input: string; output: string };
}

/**
 * Build a registry over a domain's tools. A tool that carries out one of
 * `actions` enforces that action's contract (contract.ts), so pass the
 * domain's actions (`createDomainRegistry` does); a tool matching none
 * enforces its own `runtime`. Cheap (a name map, schemas adapted once per process),
 * so a registry may be built per run or per trial. Throws for a duplicate
 * name, an unusable schema or a tool contradicting its action: the loader
 * reports those with file and field before any registry is built.
 */
export function createRegistry<State>(
  tools: readonly ToolSpec<State>[],
  actions: readonly ActionSpec[],
): Registry<State> {
  const byAction = new Map(actions.map((action) => [action.id, action]));
  const byName = new Map<string, RegistryTool<State>>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate registry tool "${tool.name}"`);
    byName.set(tool.name, {
      name: tool.name,
      spec: tool,
      input: toolSchemaOf(tool.input),
      output: toolSchemaOf(tool.output),
      runtime: resolveContract(tool, actionOf(tool, byAction)),
      userCode: {
        handler: `the handler of tool ${tool.name}`,
        input: `the input schema of tool ${tool.name}`,
        output: `the output schema of tool ${tool.name}`,
      },
    });
  }
  return new ToolRegistry(byName);
}

function failure(error: ToolError): ToolResult {
  return { ok: false, error };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class ToolRegistry<State> implements Registry<State> {
  readonly #tools: Map<string, RegistryTool<State>>;
  /**
   * The last `checkInput`, for an `invoke` that says so (`inputChecked`) to
   * reuse instead of validating again: the runner checks each call (its
   * `schema_valid`) and then invokes it. Validation copies the arguments
   * (ajv fills defaults in place) and the copy becomes the handler's input,
   * so it is handed to one invoke only. Checked and invoked synchronously,
   * so trials sharing the registry cannot interleave there.
   */
  #lastCheck: { tool: RegistryTool<State>; args: unknown; checked: Validation<unknown> } | null = null;

  constructor(tools: Map<string, RegistryTool<State>>) {
    this.#tools = tools;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  get(name: string): ToolSpec<State> | undefined {
    return this.#tools.get(name)?.spec;
  }

  contract(name: string): RuntimeContract | undefined {
    return this.#tools.get(name)?.runtime;
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  inputSchema(name: string): JsonSchema {
    const tool = this.#tools.get(name);
    if (!tool) throw new Error(`unknown registry tool "${name}"; available: ${this.names().join(', ')}`);
    return structuredClone(tool.input.jsonSchema) as JsonSchema;
  }

  checkInput(name: string, args: unknown, owner?: unknown): { ok: true } | { ok: false; violations: Violation[] } {
    const tool = this.#tools.get(name);
    if (!tool) return { ok: false, violations: [{ path: '(root)', message: `unknown tool "${name}"` }] };
    const checked = callUserCode(tool.userCode.input, () => tool.input.validate(args), owner);
    this.#lastCheck = { tool, args, checked };
    return checked.ok ? { ok: true } : { ok: false, violations: checked.violations };
  }

  async invoke(call: ToolCall, context: InvokeContext<State>): Promise<ToolResult> {
    try {
      return await this.#pipeline(call, context);
    } catch (error) {
      // The tool's environment failed (an MCP server died): not a tool answer; the trial is errored.
      if (error instanceof ToolEnvironmentError) throw error;
      // Only the registry's own machinery (a receipt store, a throwing schema
      // refinement) gets here; handler throws are caught at step 7.
      return failure(
        toolError('internal_error', `The registry failed while running ${call.tool}.`, {
          tool: call.tool,
          reason: messageOf(error),
        }),
      );
    }
  }

  async #pipeline(call: ToolCall, context: InvokeContext<State>): Promise<ToolResult> {
    // 1. find the tool
    const tool = this.#tools.get(call.tool);
    if (!tool) {
      return failure(
        toolError('tool_not_found', `There is no tool named "${call.tool}".`, {
          tool: call.tool,
          available_tools: this.names(),
        }),
      );
    }

    // 2. validate input
    // A user's schema is user code too (a zod refinement, a regex that backtracks).
    const last = this.#lastCheck;
    this.#lastCheck = null;
    const checked =
      context.inputChecked === true && last !== null && last.tool === tool && last.args === call.arguments
        ? last.checked
        : callUserCode(tool.userCode.input, () => tool.input.validate(call.arguments), context.owner);
    if (!checked.ok) {
      return failure(
        toolError('invalid_arguments', `The arguments for ${tool.name} do not match its input schema.`, {
          tool: tool.name,
          violations: checked.violations,
        }),
      );
    }
    const input = checked.value;
    const runtime = tool.runtime;

    // 3. permission
    if (runtime.permission !== null && !context.actor.permissions.includes(runtime.permission)) {
      return failure(
        toolError(
          'permission_denied',
          `${tool.name} needs the permission "${runtime.permission}", which this user does not have.`,
          {
            tool: tool.name,
            required_permission: runtime.permission,
          },
        ),
      );
    }

    // 4. approval, bound to this tool and these exact arguments (key excluded).
    // The fingerprint serves approval and idempotency only; a plain read needs neither.
    const fingerprint =
      runtime.approval === 'required' || runtime.idempotency_key !== null
        ? approvalFingerprint(call.arguments, runtime.idempotency_key)
        : '';
    if (
      runtime.approval === 'required' &&
      !context.approvals.some((approval) => approval.tool === tool.name && approval.fingerprint === fingerprint)
    ) {
      return failure(
        toolError(
          'approval_required',
          `${tool.name} is a ${runtime.effect} and needs the user's approval for exactly these arguments first.`,
          {
            tool: tool.name,
            effect: runtime.effect,
            fingerprint,
          },
        ),
      );
    }

    // 5–9 run inside the timeout boundary. The store's atomic claim (step 6)
    // keeps two handles or processes on one store from both running a key;
    // within one store object, calls sharing a key also queue behind each
    // other, so a same-turn duplicate waits and replays instead of being told
    // the key is in progress.
    const key = keyOf(input, runtime.idempotency_key);
    if (key === null) return this.#withinBoundary(tool, input, key, fingerprint, context);
    return withKeyLock(context.receipts, `${tool.name}\n${key}`, () =>
      this.#withinBoundary(tool, input, key, fingerprint, context),
    );
  }

  async #withinBoundary(
    tool: RegistryTool<State>,
    input: unknown,
    key: string | null,
    fingerprint: string,
    context: InvokeContext<State>,
  ): Promise<ToolResult> {
    const runtime = tool.runtime;
    const controller = new LazyAbortController();
    const simulated = context.simulatedTime ? new SimulatedCallTime(runtime.timeout_ms) : null;
    const held: HeldClaim = { tool, key, fingerprint, wrote: false, claimId: null };

    // Own properties, one getter for all contexts (handler-context.ts: why not an object literal).
    const handlerContext = createHandlerContext<State>({
      state: context.state,
      actor: context.actor,
      controller,
      simulated,
      effects: context.effects,
      held,
    });

    // 6–8: claim the key, run the handler, validate its output. `fresh` is
    // false when the handler did not run (replay, conflict, in progress).
    const work = (async (): Promise<{ result: ToolResult; fresh: boolean }> => {
      if (key !== null) {
        const claim = await context.receipts.claim(tool.name, key, fingerprint);
        if (claim.kind === 'receipt') {
          if (claim.receipt.fingerprint !== fingerprint) return { fresh: false, result: conflictOf(tool, key) };
          return { fresh: false, result: replayOf(claim.receipt.result) };
        }
        if (claim.kind === 'pending') {
          if (claim.fingerprint !== fingerprint) return { fresh: false, result: conflictOf(tool, key) };
          return { fresh: false, result: inProgressOf(tool, key, claim.claimed_at) };
        }
        held.claimId = claim.claim_id;
        // The claim came back after the boundary gave up: do not start the
        // handler; the late settlement below releases the claim.
        if (controller.signal.aborted)
          return {
            fresh: false,
            result: failure(toolError('tool_timeout', `${tool.name} did not start.`, { tool: tool.name })),
          };
      }
      return { fresh: true, result: await this.#runHandler(tool, input, handlerContext, context.owner) };
    })();

    // 5. the timeout boundary
    simulated?.armTimeout();
    const outcome = await raceBoundary(work, {
      timeoutMs: runtime.timeout_ms,
      controller,
      outer: context.signal,
      expired: simulated?.expired,
    });
    if (simulated) context.simulatedTime!.elapsedMs = simulated.elapsedMs;
    if (outcome.kind !== 'done') {
      const timeout = failure(
        toolError(
          'tool_timeout',
          outcome.kind === 'timeout'
            ? `${tool.name} did not finish within its ${runtime.timeout_ms} ms timeout.`
            : `${tool.name} was cancelled before it finished.`,
          {
            tool: tool.name,
            timeout_ms: runtime.timeout_ms,
            ...(outcome.kind === 'cancelled' ? { cancelled: true } : {}),
          },
          { retryable: runtime.retry.transient },
        ),
      );
      // A write that slipped in anyway must still stop a second one: it gets
      // a receipt carrying the timeout the caller saw. Until the handler has
      // settled the claim stays held (a retry meanwhile is "in progress"),
      // then it becomes that receipt, or is released if nothing was written.
      if (held.wrote) await settleClaim(held, timeout, context.receipts);
      else if (key !== null)
        work
          .then(
            () => settleClaim(held, timeout, context.receipts),
            () => settleClaim(held, timeout, context.receipts),
          )
          .catch(() => undefined);
      return timeout;
    }

    // 9. save the receipt (or release the claim)
    const { result, fresh } = outcome.value;
    if (fresh) await settleClaim(held, result, context.receipts);
    return result;
  }

  /** 7–8: run the handler, contain a throw, check what it returned. */
  async #runHandler(
    tool: RegistryTool<State>,
    input: unknown,
    handlerContext: HandlerContext<State>,
    owner: unknown,
  ): Promise<ToolResult> {
    let returned: unknown;
    try {
      returned = await callUserCode(tool.userCode.handler, () => tool.spec.handler(input, handlerContext), owner);
    } catch (error) {
      if (error instanceof ToolEnvironmentError) throw error;
      return failure(
        toolError('handler_exception', `${tool.name} failed unexpectedly; the failure was contained.`, {
          tool: tool.name,
          exception: error instanceof Error ? error.name : typeof error,
          reason: messageOf(error),
        }),
      );
    }
    if (isHandlerFailure(returned)) {
      const error = toolSchemaOf(ToolError).validate(returned.error);
      if (error.ok) return failure(error.value);
      return failure(
        toolError('invalid_tool_output', `${tool.name} returned a malformed error.`, {
          tool: tool.name,
          violations: error.violations,
        }),
      );
    }
    const output = callUserCode(tool.userCode.output, () => tool.output.validate(returned), owner);
    if (!output.ok) {
      return failure(
        toolError('invalid_tool_output', `${tool.name} returned output that does not match its declared schema.`, {
          tool: tool.name,
          violations: output.violations,
        }),
      );
    }
    return { ok: true, output: output.value, replayed: false };
  }
}
