import type { ActionSpec, ArgConstraints, Constraint, SequenceStep, Task } from '../../src/spec/index.ts';
import type { Behaviour } from './behaviours.ts';
import { distractorPull, nameEffect, SURFACE_EFFECTS } from './behaviours.ts';
import { chance, pick } from './random.ts';
import type { SurfaceTraits } from './surface-traits.ts';
import { TASK_HINTS, type TaskHint } from './task-hints.ts';

/** Arguments of a step: fixed, or built from the outputs read so far (null = cannot build, skip). */
export type StepArgs = Record<string, unknown> | ((outputs: readonly unknown[]) => Record<string, unknown> | null);

/** One call the synthetic model means to make. */
export interface Step {
  /** The action it calls (a near-synonym of `intended` when it confused them). */
  action: string;
  /** The right action for this step. */
  intended: string;
  args: StepArgs;
  /** Page through results with next_cursor until the last page. */
  page: boolean;
  role: 'main' | 'preview' | 'extra' | 'guess';
}

/** Everything a trial's decisions are seeded and shaped by. */
export interface TrialSetting {
  behaviour: Behaviour;
  task: Task;
  actions: readonly ActionSpec[];
  traits: SurfaceTraits;
  /** Seed prefix: behaviour, domain, task, trial (not the surface: see createPolicy). */
  seed: readonly (string | number)[];
}

/** Near-synonyms per action: what a confused model calls instead. */
export const NEAR_SYNONYMS: Record<string, readonly string[]> = {
  'ticket.get': ['ticket.lookup_slow'],
  'ticket.lookup_slow': ['ticket.get'],
  'ticket.list': ['ticket.get'],
  'ticket.preview_followup': ['ticket.record_followup'],
  'ticket.record_followup': ['ticket.preview_followup'],
  'billing.invoice.get': ['billing.invoice.lookup_archive'],
  'billing.invoice.lookup_archive': ['billing.invoice.get'],
  'billing.invoice.list': ['billing.invoice.get'],
  'billing.customer.get': ['billing.customer.search'],
  'billing.customer.search': ['billing.customer.get'],
  'billing.refund.preview': ['billing.refund.submit'],
  'billing.refund.submit': ['billing.refund.preview'],
};

const userText = (task: Task) =>
  task.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');

/** Text the user quoted (single or double quotes around a phrase, not an apostrophe). */
export function quotedText(text: string): string | null {
  const match = /(?:^|[\s:(])['"‘“](.+?)['"’”](?=[\s.,!?)]|$)/.exec(text);
  return match ? match[1]!.trim() : null;
}

/** A word of the user's message matching a regex constraint (for name searches). */
function wordMatching(pattern: string, text: string): string | null {
  const regex = new RegExp(pattern);
  for (const word of text.split(/[^A-Za-z0-9-]+/)) if (word.length > 1 && regex.test(word)) return word;
  return null;
}

/** A stable idempotency key for a write, as a model would invent one. */
function idempotencyKey(setting: TrialSetting, args: Record<string, unknown>): string {
  const target = String(args.ticket_id ?? args.invoice_id ?? 'x').toLowerCase();
  return `${setting.behaviour.name.slice(0, 2)}-${target}-${setting.seed.at(-1)}`;
}

/** A concrete value for one constraint, or undefined to leave the field out. */
function valueFor(field: string, constraint: Constraint, setting: TrialSetting, hint: TaskHint): unknown {
  if (constraint === null || typeof constraint !== 'object' || Array.isArray(constraint)) return constraint;
  const operator = constraint as Record<string, unknown>;
  if (Array.isArray(operator.one_of)) return operator.one_of[0];
  if (typeof operator.contains === 'string') {
    const quoted = quotedText(userText(setting.task));
    if (quoted && quoted.toLowerCase().includes(operator.contains.toLowerCase())) return quoted;
    if (hint.note && hint.note.toLowerCase().includes(operator.contains.toLowerCase())) return hint.note;
    return `Update: ${operator.contains}.`;
  }
  if (typeof operator.regex === 'string') return wordMatching(operator.regex, userText(setting.task)) ?? undefined;
  if (operator.any === true) return field === 'cursor' ? undefined : null; // keys are filled below; cursors come from paging
  return constraint;
}

function argsFrom(
  constraints: ArgConstraints | undefined,
  setting: TrialSetting,
  hint: TaskHint,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [field, constraint] of Object.entries(constraints ?? {})) {
    const value = valueFor(field, constraint, setting, hint);
    if (value !== undefined) args[field] = value;
  }
  return args;
}

/** Is `later` the same call as `earlier` asked again with only paging or page-size fields added? */
function continues(earlier: SequenceStep, later: SequenceStep): boolean {
  if (typeof earlier === 'string' || typeof later === 'string' || earlier.action !== later.action) return false;
  const before = earlier.args ?? {};
  const after = later.args ?? {};
  return (
    Object.entries(before).every(([field, value]) => JSON.stringify(after[field]) === JSON.stringify(value)) &&
    Object.keys(after).every((field) => field in before || field === 'cursor' || field === 'limit')
  );
}

/** The right calls for a task, before any temperament: from hints, else from `expect`. */
function rightSteps(setting: TrialSetting, hint: TaskHint): Step[] {
  const { task } = setting;
  const text = userText(task);
  const wantsAll = hint.page ?? /\b(every|all)\b/i.test(text);
  let raw: { action: string; args?: ArgConstraints }[] = [];
  if (hint.steps) raw = hint.steps;
  else if (task.expect.sequence) {
    const steps = task.expect.sequence;
    raw = steps
      .filter((step, index) => index === 0 || !continues(steps[index - 1]!, step))
      .map((step) => (typeof step === 'string' ? { action: step } : step));
  } else if (task.expect.action || task.expect.any_of) {
    raw = [{ action: task.expect.action ?? task.expect.any_of![0]!, args: task.expect.args }];
  }
  const steps: Step[] = raw.map((step) => {
    const args = { ...argsFrom(step.args, setting, hint), ...(hint.args?.[step.action] ?? {}) };
    return {
      action: step.action,
      intended: step.action,
      args,
      page: wantsAll && step.action.endsWith('.list'),
      role: 'main',
    };
  });
  fillPairs(steps, setting, hint);
  return steps;
}

/**
 * A preview and its write share their arguments (less the write's
 * idempotency key), so what is written is exactly what was previewed; a
 * write gets its key; a note nobody quoted comes from the hint.
 */
function fillPairs(steps: Step[], setting: TrialSetting, hint: TaskHint): void {
  const byId = new Map(setting.actions.map((action) => [action.id, action]));
  for (const step of steps) {
    const args = step.args as Record<string, unknown>;
    const write = byId.get(step.action);
    const partner = write?.preview
      ? steps.find((other) => other.action === write.preview)
      : steps.find((other) => byId.get(other.action)?.preview === step.action);
    if (partner) {
      for (const [field, value] of Object.entries(partner.args as Record<string, unknown>)) {
        if (
          field !== write?.idempotency_key &&
          field !== byId.get(partner.action)?.idempotency_key &&
          args[field] === undefined
        )
          args[field] = value;
      }
    }
    if ('ticket_id' in args && args.note === undefined && /followup/.test(step.action))
      args.note = quotedText(userText(setting.task)) ?? hint.note ?? 'Following up on this ticket.';
    const key = byId.get(step.action)?.idempotency_key;
    if (key && (args[key] === undefined || args[key] === null)) args[key] = idempotencyKey(setting, args);
  }
}

/**
 * The confusion multiplier for picking `other` instead of `action` on this
 * surface. Descriptions and names are two cues for the same fact (which of
 * the two is which), so the stronger one counts, not their product: names
 * help where descriptions do not tell the tools apart (flat-v1), and add
 * nothing where they already do (typed-v2).
 */
function confusionFactor(setting: TrialSetting, action: string, other: string): number {
  const { traits, behaviour } = setting;
  if (traits.wide) return SURFACE_EFFECTS.wide.confuse * revisionFactor(setting);
  const described = traits.disambiguates(action, other)
    ? SURFACE_EFFECTS.disambiguated.confuse
    : SURFACE_EFFECTS.undisambiguated.confuse;
  const named = nameEffect(behaviour, traits.namesDistinguish(action, other));
  return Math.min(described, named) * revisionFactor(setting);
}

/** A skimming model on a revision tuned on train phrasings: helped on train, not elsewhere (SURFACE_EFFECTS.tunedRevision). */
function revisionFactor({ traits, behaviour, task }: TrialSetting): number {
  if (!traits.tunedRevision || !behaviour.skimsDescriptions) return 1;
  return task.split === 'train' ? SURFACE_EFFECTS.tunedRevision.hastyTrain : SURFACE_EFFECTS.tunedRevision.hastyHeldout;
}

const idIn = (text: string, pattern: RegExp): string | null => pattern.exec(text)?.[0] ?? null;

/** The arguments of `to` for a model that meant `from` with `args`; null when the swap would make no sense. */
function swapArgs(
  from: string,
  to: string,
  args: Record<string, unknown>,
  setting: TrialSetting,
): Record<string, unknown> | null {
  const text = userText(setting.task);
  const { simulated_latency_ms: _latency, action_id: _action, refund_id: _refund, cursor: _cursor, ...rest } = args;
  if (to === 'ticket.get' || to === 'ticket.lookup_slow') {
    const ticket = (args.ticket_id as string | undefined) ?? idIn(text, /T-\d{3}/);
    return ticket ? { ticket_id: ticket } : null;
  }
  if (to === 'ticket.list') return {};
  if (to === 'ticket.record_followup') return { ...rest, action_id: idempotencyKey(setting, rest) };
  if (to === 'billing.refund.submit') return { ...rest, refund_id: idempotencyKey(setting, rest) };
  if (to === 'ticket.preview_followup' || to === 'billing.refund.preview') return rest;
  if (to === 'billing.invoice.get' || to === 'billing.invoice.lookup_archive') {
    const invoice = (args.invoice_id as string | undefined) ?? idIn(text, /INV-\d{4}/);
    return invoice ? { invoice_id: invoice } : null;
  }
  if (to === 'billing.customer.get') {
    const customer = (args.customer_id as string | undefined) ?? idIn(text, /\bC-\d+\b/);
    return customer ? { customer_id: customer } : null;
  }
  if (to === 'billing.customer.search') {
    const name = /\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b/.exec(text.replace(/^[A-Z][a-z]*\b/, ''))?.[1];
    return name ? { name } : null;
  }
  return null;
}

/** Pick a near-synonym instead of the right action, at the behaviour's rate times the surface's factor. */
function confuse(step: Step, index: number, setting: TrialSetting): Step {
  const { task, behaviour, seed } = setting;
  const firstStep = index === 0 && (task.kind === 'must-call' || task.kind === 'similar-tool');
  const candidates = [
    ...new Set([...(firstStep ? (task.expect.distractors ?? []) : []), ...(NEAR_SYNONYMS[step.action] ?? [])]),
  ].filter((other) => other !== step.action && setting.traits.has(other));
  if (candidates.length === 0) return step;
  const other = pick(candidates, ...seed, 'confuse-which', index);
  const probability = Math.min(0.95, behaviour.rates.confuse * confusionFactor(setting, step.action, other));
  if (!chance(probability, ...seed, 'confuse', index)) return step;
  const args = swapArgs(step.action, other, step.args as Record<string, unknown>, setting);
  return args ? { ...step, action: other, args, page: false } : step;
}

/**
 * Call a distractor tool instead (issue 19 sweeps): the pull grows with the
 * number of distractors in the payload (SURFACE_EFFECTS.distractorPull, per
 * behaviour, capped). No distractors: no draw, so other surfaces' cassettes
 * are unchanged. The call keeps the step's arguments; the name is the
 * distractor's, which no action maps to (the registry answers tool_not_found).
 */
function distract(step: Step, index: number, setting: TrialSetting): Step {
  const { traits, behaviour, seed } = setting;
  const count = traits.distractors.length;
  if (count === 0) return step;
  const pull = distractorPull(behaviour, count);
  if (!chance(pull, ...seed, 'distractor', index)) return step;
  const name = pick(traits.distractors, ...seed, 'distractor-which', index);
  return { ...step, action: name, page: false };
}

/** An extra read after a step (the "let me double-check" call). */
function extraRead(step: Step): Step | null {
  const read = (action: string, build: (output: Record<string, unknown>) => Record<string, unknown> | null): Step => ({
    action,
    intended: action,
    role: 'extra',
    page: false,
    args: (outputs) => {
      const last = outputs.at(-1);
      return last && typeof last === 'object' ? build(last as Record<string, unknown>) : null;
    },
  });
  const firstOf = (list: unknown) =>
    Array.isArray(list) && list[0] && typeof list[0] === 'object' ? (list[0] as Record<string, unknown>).id : undefined;
  switch (step.action) {
    case 'ticket.record_followup':
    case 'ticket.preview_followup':
      return read('ticket.get', (output) =>
        typeof output.ticket_id === 'string' ? { ticket_id: output.ticket_id } : null,
      );
    case 'ticket.list':
      return read('ticket.get', (output) =>
        typeof firstOf(output.tickets) === 'string' ? { ticket_id: firstOf(output.tickets) } : null,
      );
    case 'billing.invoice.get':
    case 'billing.invoice.lookup_archive':
      return read('billing.customer.get', (output) =>
        typeof output.customer_id === 'string' ? { customer_id: output.customer_id } : null,
      );
    case 'billing.customer.search':
      return read('billing.customer.get', (output) =>
        typeof firstOf(output.customers) === 'string' ? { customer_id: firstOf(output.customers) } : null,
      );
    case 'billing.invoice.list':
      return read('billing.invoice.get', (output) =>
        typeof firstOf(output.invoices) === 'string' ? { invoice_id: firstOf(output.invoices) } : null,
      );
    case 'billing.refund.submit':
    case 'billing.refund.preview':
      return read('billing.invoice.get', (output) =>
        typeof output.invoice_id === 'string' ? { invoice_id: output.invoice_id } : null,
      );
    default:
      return null;
  }
}

/** What a model that will not ask calls on a must-abstain task: a read of a named id, or a write with guessed details. */
function guessForAbstain(setting: TrialSetting): Step | null {
  const { task, traits } = setting;
  const text = userText(task);
  const wantsWrite = /\b(add|record|send|post|note|log|close|delete|merge|bump|refund|issue|void|knock|move)\b/i.test(
    text,
  );
  const canAct = task.actor.permissions.length > 0;
  // Only a model that writes unasked elsewhere guesses a write; a careful one guesses with a read.
  const mayWrite = setting.behaviour.rates.writeUnasked >= 0.1;
  if (!canAct) return null;
  const step = (action: string, args: Record<string, unknown>): Step | null =>
    traits.has(action) ? { action, intended: action, args, page: false, role: 'guess' } : null;
  if (task.domain === 'tickets') {
    const ticket = idIn(text, /T-\d{3}/) ?? 'T-101';
    if (wantsWrite && mayWrite && task.actor.permissions.includes('ticket:write')) {
      const note = quotedText(text) ?? (/close/i.test(text) ? 'Closed: customer confirmed the fix.' : 'Fixed.');
      return step('ticket.record_followup', {
        ticket_id: ticket,
        note,
        action_id: idempotencyKey(setting, { ticket_id: ticket }),
      });
    }
    return idIn(text, /T-\d{3}/) ? step('ticket.get', { ticket_id: ticket }) : step('ticket.list', {});
  }
  const invoice = idIn(text, /INV-\d{4}/);
  const dollars = /\$(\d+(?:\.\d+)?)/.exec(text);
  if (wantsWrite && mayWrite && task.actor.permissions.includes('billing:refund') && /refund|void/i.test(text)) {
    const args = {
      invoice_id: invoice ?? 'INV-1001',
      amount_cents: dollars ? Math.round(Number(dollars[1]) * 100) : 1000,
    };
    return step('billing.refund.submit', { ...args, refund_id: idempotencyKey(setting, args) });
  }
  if (invoice) return step('billing.invoice.get', { invoice_id: invoice });
  const name = /\b([A-Z][a-z]+ (?:Corp|Logistics|Legal|Bakery|Dental|Florists|Ltd|Analytics))\b/.exec(text)?.[1];
  return name
    ? step('billing.customer.search', { name: name.split(' ')[0] })
    : step('billing.invoice.list', { customer_id: 'C-1' });
}

/**
 * The calls this trial's synthetic model will make, in order, decided once
 * from seeds: the right steps, then the behaviour's deviations — a preview
 * inserted before writes (careful habit) or skipped (hasty habit), confused
 * near-synonyms, an extra read, or a call on a must-abstain task.
 */
export function buildAgenda(setting: TrialSetting): Step[] {
  const { task, behaviour, traits, seed, actions } = setting;
  const hint = TASK_HINTS[task.id] ?? {};
  const rates = behaviour.rates;
  const tuned = revisionFactor(setting);
  const wide = traits.wide ? SURFACE_EFFECTS.wide : { skipPreview: tuned, writeUnasked: tuned };
  let steps = rightSteps(setting, hint);

  if (steps.length === 0) {
    const guess = chance(rates.guessInsteadOfAsk, ...seed, 'guess') ? guessForAbstain(setting) : null;
    return guess ? [guess] : [];
  }

  // Previews before writes: skipped when listed (hasty), inserted when the user did not say it is approved (careful).
  const byId = new Map(actions.map((action) => [action.id, action]));
  const withPreviews: Step[] = [];
  steps.forEach((step, index) => {
    const previewAction = byId.get(step.action)?.preview;
    const previewed = previewAction !== undefined && withPreviews.some((earlier) => earlier.action === previewAction);
    if (previewAction && !previewed && task.approve !== 'all' && traits.has(previewAction)) {
      if (!chance(rates.writeUnasked * wide.writeUnasked, ...seed, 'write-unasked', index)) {
        const { [byId.get(step.action)!.idempotency_key ?? '']: _key, ...args } = step.args as Record<string, unknown>;
        withPreviews.push({ action: previewAction, intended: previewAction, args, page: false, role: 'preview' });
      }
    }
    const nextIsWrite = steps[index + 1] && byId.get(steps[index + 1]!.action)?.preview === step.action;
    if (nextIsWrite && chance(rates.skipPreview * wide.skipPreview, ...seed, 'skip-preview', index)) return;
    withPreviews.push(step);
  });
  steps = withPreviews.map((step, index) => distract(confuse(step, index, setting), index, setting));

  if (chance(rates.overCall, ...seed, 'over-call')) {
    const extra = extraRead(steps.at(-1)!);
    if (extra) steps.push(extra);
  }
  return steps;
}
