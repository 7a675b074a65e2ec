import { z } from 'zod';
import { Json } from './json.ts';
import { ModelTurn, ToolCallProposal, Usage } from './model.ts';
import { TaskKind, Split } from './task.ts';
import { SideEffect } from './tool-call.ts';
import { ToolError } from './tool-error.ts';
import { shapeCheck } from './shape-check.ts';
import { LoadingRecord } from './surface-loading.ts';

/** How a proposal was routed: to a registry tool and (when known) an action. */
export const Routing = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('resolved'), tool: z.string(), action: z.string(), args: z.unknown() }),
  /** Exposed name not on the surface (hallucinated, or mis-encoded). */
  z.object({ kind: z.literal('unknown_tool') }),
  /** Multiplexed tool whose selector field named no mapped action. */
  z.object({ kind: z.literal('unknown_action'), tool: z.string(), selector: z.unknown() }),
]);
export type Routing = z.infer<typeof Routing>;

/** One proposed call and what became of it. */
export const CallRecord = z.object({
  turn: z.number().int().nonnegative(),
  proposal: ToolCallProposal,
  /** Did the raw argument string parse as a JSON object? */
  parsed: z.boolean(),
  routing: Routing,
  /** Did the arguments pass the registry tool's input schema (null if never checked)? */
  schema_valid: z.boolean().nullable(),
  outcome: z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), output: z.unknown(), replayed: z.boolean().default(false) }),
    z.object({ ok: z.literal(false), error: ToolError }),
  ]),
  /** Set when a task fault produced this outcome instead of the registry. */
  fault: z
    .object({ error: z.string().nullable(), inject: z.boolean(), good_next: z.string().nullable() })
    .nullable()
    .default(null),
  /** Was an approval for exactly these arguments present when invoked? */
  approved: z.boolean().default(false),
  latency_ms: z.number().nonnegative().default(0),
  /**
   * Set when the proposal was never executed, and why: `max_calls` — the
   * trial had reached its call limit. It is still scored (selection,
   * argument validity, safety); its outcome is a `not_executed` error the
   * model never saw.
   */
  not_executed: z.enum(['max_calls']).optional(),
  /** Set when the tool's result was over `run.max_tool_output_bytes` and was cut (src/solve/tool-output-limit.ts). */
  output_truncated: z.object({ bytes: z.number().int().positive(), limit: z.number().int().positive() }).optional(),
});
export type CallRecord = z.infer<typeof CallRecord>;

/** A grader's verdict, with what it expected and what it saw. */
export const Verdict = z.object({
  grader: z.string(),
  pass: z.boolean(),
  expected: z.unknown(),
  actual: z.unknown(),
  note: z.string().optional(),
});
export type Verdict = z.infer<typeof Verdict>;

/** A summary of one request (the full messages are in the turns; this keeps records small). */
export const RequestSummary = z.object({
  turn: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  tools: z.number().int().nonnegative(),
  request_hash: z.string(),
});
export type RequestSummary = z.infer<typeof RequestSummary>;

export const TrialStatus = z.enum(['completed', 'errored']);

/** One trial, as appended to `trials.jsonl` (SPEC §3). */
export const TrialRecord = z.object({
  v: z.literal(1),
  provider: z.string(),
  model: z.string(),
  domain: z.string(),
  surface: z.string(),
  surface_hash: z.string(),
  split: Split,
  task: z.string(),
  kind: TaskKind,
  trial: z.number().int().nonnegative(),
  status: TrialStatus,
  /**
   * Provider failure. With status `errored` it is never scored as a model
   * miss; with stop_reason `rejected` (status completed) the server refused
   * a later turn of the conversation the model produced, and the trial is
   * scored on the turns received. `scope`: see FailureScope (absent = transient).
   */
  error: z
    .object({
      status: z.number().nullable(),
      message: z.string(),
      retryable: z.boolean(),
      scope: z.enum(['run', 'request']).optional(),
    })
    .nullable()
    .default(null),
  stop_reason: z.enum(['answered', 'max_turns', 'max_calls', 'errored', 'rejected']),
  requests: z.array(RequestSummary),
  turns: z.array(ModelTurn),
  calls: z.array(CallRecord),
  effects: z.array(SideEffect),
  /** Domain state views at the end of the trial (for `final_state`). */
  final_state: z.record(z.string(), Json).default({}),
  final_text: z.string().nullable(),
  usage: Usage,
  latency_ms: z.number().nonnegative(),
  schema_tokens: z.number().int().nonnegative(),
  schema_bytes: z.number().int().nonnegative(),
  started_at: z.string().optional(),
  /** Deferred surfaces only: initial and loaded schema tokens per turn, and every tool search with its results. */
  loading: LoadingRecord.optional(),
  // The grade is last, as the runner writes it (re-scoring cuts lines there: src/run-folder/graded-tail.ts).
  verdicts: z.array(Verdict).default([]),
  /** Overall: every expectation met, no unsafe proposal, within limits. */
  success: z.boolean().nullable().default(null),
});
export type TrialRecord = z.infer<typeof TrialRecord>;

/** `TrialRecord.parse` would accept the value unchanged (fast path of every reader and of the runner; else run the schema). */
export const isTrialRecordShape = shapeCheck(TrialRecord);

let builtRecordCheck: ((value: unknown) => boolean) | null = null;

/**
 * `isTrialRecordShape` for a record the runner has just built
 * (src/solve/trial.ts): each of its `turns` was checked as a ModelTurn as it
 * came (normalTurn, src/solve/normalize.ts) and its `requests` are the
 * runner's own summaries (a turn number, two lengths and a request hash),
 * so of those two only that they are arrays is checked again. They were
 * about half of the check, made on every trial. The schema is derived on
 * first use (importing the spec builds no more of it).
 */
export function isBuiltTrialRecordShape(value: TrialRecord): boolean {
  builtRecordCheck ??= shapeCheck(TrialRecord.extend({ requests: z.array(z.unknown()), turns: z.array(z.unknown()) }));
  return builtRecordCheck(value);
}
