import { approvalFingerprint } from '../registry/index.ts';
import type { ActionSpec, Approval, Task } from '../spec/index.ts';

export type ApprovalPolicy = Task['approve'];

/**
 * The approvals the simulated user gives during one trial.
 *
 * - `none`: never.
 * - `all`: exactly the call being made, and nothing else.
 * - `after_preview`: after a successful call of preview action P, each write
 *   W with `W.preview === P` is approved for the previewed arguments only
 *   (fingerprint without W's idempotency key), so writing a different note
 *   than the one previewed is refused.
 *
 * Approvals are kept per action (fingerprint of the action's own arguments)
 * and translated to the registry tool at call time, so a multiplexed tool
 * and a narrow tool are judged alike.
 */
export class ApprovalLedger {
  readonly #policy: ApprovalPolicy;
  readonly #actions: ReadonlyMap<string, ActionSpec>;
  /** `${action}\n${fingerprint}` of every approval granted so far (only `after_preview` grants any). */
  readonly #granted: Set<string> | null;
  /** The last fingerprint made: one call asks about the same action and arguments up to three times. */
  #last: { action: string; args: unknown; fingerprint: string } | null = null;

  constructor(policy: ApprovalPolicy, actions: readonly ActionSpec[]) {
    this.#policy = policy;
    this.#actions = actionIndex(actions);
    this.#granted = policy === 'after_preview' ? new Set() : null;
  }

  #fingerprint(action: string, args: unknown): string {
    const last = this.#last;
    if (last !== null && last.action === action && last.args === args) return last.fingerprint;
    const fingerprint = approvalFingerprint(args, this.#actions.get(action)?.idempotency_key ?? null);
    this.#last = { action, args, fingerprint };
    return fingerprint;
  }

  /** Did the user approve action `action` with these (action-level) arguments? */
  isApproved(action: string, args: unknown): boolean {
    if (this.#policy === 'all') return true;
    if (this.#policy === 'none') return false;
    return this.#granted!.has(`${action}\n${this.#fingerprint(action, args)}`);
  }

  /**
   * The approvals handed to the registry for one call of registry tool
   * `tool` (whose idempotency field is `idempotencyKey`) meaning `action`.
   */
  forCall(options: {
    tool: string;
    idempotencyKey: string | null;
    callArgs: unknown;
    action: string;
    actionArgs: unknown;
  }): Approval[] {
    if (!this.isApproved(options.action, options.actionArgs)) return [];
    return [{ tool: options.tool, fingerprint: approvalFingerprint(options.callArgs, options.idempotencyKey) }];
  }

  /** A call of `action` succeeded: under `after_preview`, approve the writes it previews. */
  noteSuccess(action: string, args: unknown): void {
    if (this.#policy !== 'after_preview') return;
    for (const write of this.#actions.values()) {
      if (write.preview === action) this.#granted!.add(`${write.id}\n${this.#fingerprint(write.id, args)}`);
    }
  }
}

/**
 * A domain's actions by id, made once per actions list rather than twice per
 * trial (a 10,000-trial replay built 20,000 of these maps). A domain's
 * actions never change once it is loaded.
 */
const indexes = new WeakMap<readonly ActionSpec[], ReadonlyMap<string, ActionSpec>>();

/** `actions` by id (shared: do not change it). */
export function actionIndex(actions: readonly ActionSpec[]): ReadonlyMap<string, ActionSpec> {
  let index = indexes.get(actions);
  if (index === undefined) indexes.set(actions, (index = new Map(actions.map((action) => [action.id, action]))));
  return index;
}
