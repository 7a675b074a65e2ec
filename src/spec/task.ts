import { z } from 'zod';
import { SuiteId } from './suite-id.ts';
import { Json } from './json.ts';
import { Actor, Effect } from './tool-call.ts';

export const TaskKind = z.enum(['must-call', 'must-abstain', 'similar-tool', 'multi-step']);
export type TaskKind = z.infer<typeof TaskKind>;
export const TASK_KINDS = TaskKind.options;

/**
 * An argument (or final-state) constraint: a literal JSON value (deep
 * equality), or one operator object.
 */
export const Constraint = z.union([
  z.strictObject({ regex: z.string() }),
  z.strictObject({ one_of: z.array(Json).min(1) }),
  z.strictObject({ contains: z.string() }),
  z.strictObject({ any: z.literal(true) }),
  /** Omitted, or equal to this value (the tool's default): `limit: {default: 5}`. */
  z.strictObject({ default: Json }),
  Json,
]);
export type Constraint = z.infer<typeof Constraint>;

export const ArgConstraints = z.record(z.string(), Constraint);
export type ArgConstraints = z.infer<typeof ArgConstraints>;

/** One step of an expected sequence: an action, optionally with argument constraints. */
export const SequenceStep = z.union([
  z.string(),
  z.strictObject({ action: z.string(), args: ArgConstraints.optional() }),
]);
export type SequenceStep = z.infer<typeof SequenceStep>;

export const GoodNext = z.enum(['retry', 'fix_arguments', 'ask_approval', 'requery', 'stop']);
export type GoodNext = z.infer<typeof GoodNext>;

/**
 * A fault: the n-th call of an action returns a structured error instead of
 * running (or, with `inject`, returns normal-looking output carrying an
 * untrusted instruction).
 */
export const Fault = z.strictObject({
  action: z.string(),
  on_call: z.number().int().min(1).default(1),
  error: z.string().optional(),
  message: z.string().optional(),
  /** Text placed in the tool output, e.g. a prompt injection. */
  inject: z.string().optional(),
  good_next: GoodNext.optional(),
});
export type Fault = z.infer<typeof Fault>;

/** What a must-abstain answer must ask about: any of these words (case-insensitive), or a pattern. */
export const AskAbout = z.union([z.array(z.string().min(1)).min(1), z.strictObject({ regex: z.string() })]);
export type AskAbout = z.infer<typeof AskAbout>;

export const Expect = z.strictObject({
  action: z.string().optional(),
  abstain: z.literal(true).optional(),
  any_of: z.array(z.string()).min(1).optional(),
  sequence: z.array(SequenceStep).min(1).optional(),
  args: ArgConstraints.optional(),
  distractors: z.array(z.string()).optional(),
  forbid_effects: z.array(Effect).optional(),
  /** Domain state views (declared by the domain) → constraint on their value at the end. */
  final_state: z.record(z.string(), Constraint).optional(),
  /** Strings the final answer must contain (case-insensitive). */
  evidence: z.array(z.string()).optional(),
  /** For abstain tasks: the answer should ask the user for missing information. */
  ask: z.boolean().optional(),
  /**
   * For abstain tasks: what the question must be about (implies `ask: true`).
   * Without it any question counts as asking.
   */
  ask_about: AskAbout.optional(),
  /** Minimum number of calls the task needs (for unnecessary_calls); derived when absent. */
  min_calls: z.number().int().nonnegative().optional(),
});
export type Expect = z.infer<typeof Expect>;

export const Limits = z.strictObject({
  max_calls: z.number().int().positive().default(8),
  max_turns: z.number().int().positive().default(8),
});
export type Limits = z.infer<typeof Limits>;

export const TaskMessage = z.strictObject({
  role: z.enum(['user', 'system', 'assistant']),
  content: z.string(),
});

/** One eval item as written in YAML (SPEC §3). */
export const TaskSpec = z.strictObject({
  id: SuiteId,
  kind: TaskKind,
  description: z.string().optional(),
  messages: z.array(TaskMessage).min(1),
  actor: Actor.default({ id: 'user', permissions: [] }),
  approve: z.enum(['none', 'all', 'after_preview']).default('none'),
  expect: Expect,
  faults: z.array(Fault).default([]),
  limits: Limits.default({ max_calls: 8, max_turns: 8 }),
  tags: z.array(z.string()).default([]),
});
export type TaskSpec = z.infer<typeof TaskSpec>;

export const TaskFile = z.strictObject({
  v: z.literal(1).optional(),
  tasks: z.array(TaskSpec).min(1),
});
export type TaskFile = z.infer<typeof TaskFile>;

export const Split = z.enum(['train', 'heldout']);
export type Split = z.infer<typeof Split>;

/** A loaded task: the spec plus where it came from. */
export const Task = TaskSpec.extend({
  domain: z.string(),
  split: Split,
  source: z.object({ file: z.string(), line: z.number().int() }),
});
export type Task = z.infer<typeof Task>;
