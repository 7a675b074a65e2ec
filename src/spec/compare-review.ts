import type { Comparison } from './comparison.ts';

/**
 * The revision review that `toolmark compare --out` renders into
 * compare.html and the PR-comment report.md: the comparison itself plus
 * what changed in the surface and what it did to the model. In memory only
 * (comparison.json stays the file format), so these are plain types.
 */

/** One run of words of a word-level diff: kept, added (in B only) or deleted (in A only). */
export interface WordDiffPart {
  op: 'same' | 'add' | 'del';
  text: string;
}

/** A changed text of one tool: its description or one parameter's description. */
export interface TextChange {
  /** `description`, or `parameter <dotted.path>`. */
  field: string;
  before: string | null;
  after: string | null;
  diff: WordDiffPart[];
}

/** A structural change of a tool's parameter schema (descriptions aside). */
export interface SchemaChange {
  /** Dotted property path, `(root)` for the schema itself. */
  path: string;
  change: string;
}

/** Bytes and o200k tokens of one tool's definition (or a whole payload). */
export interface PayloadCost {
  bytes: number;
  tokens: number;
}

/** One tool of a surface diff, matched by action (identity tools) or registry tool (multiplexed tools). */
export interface ToolDiff {
  key: string;
  /** Actions this tool expresses (either side). */
  actions: string[];
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  name: { a: string | null; b: string | null };
  renamed: boolean;
  /** 0-based position in the payload. */
  position: { a: number | null; b: number | null };
  texts: TextChange[];
  schema: SchemaChange[];
  cost: { a: PayloadCost | null; b: PayloadCost | null };
}

/** What the model sees, A against B, for one domain. */
export interface SurfaceDiff {
  domain: string;
  a: { id: string; hash: string } | null;
  b: { id: string; hash: string } | null;
  /** Null when both payloads were found; otherwise why the diff could not be made. */
  unavailable: string | null;
  tools: ToolDiff[];
  /** The common tools appear in a different relative order. */
  reordered: boolean;
  /** Surface-level changes: system prompt, strictness. */
  surfaceTexts: TextChange[];
  total: { a: PayloadCost | null; b: PayloadCost | null };
}

/** Tools of a diff that changed in a way the model can see (text, schema, name, presence or position). */
export function changedTools(diff: SurfaceDiff): ToolDiff[] {
  return diff.tools.filter(
    (tool) => tool.status !== 'unchanged' || (diff.reordered && tool.position.a !== tool.position.b),
  );
}

/** A decision for one comparison (all providers, or one), worded in the renderers. */
export interface CompareDecision {
  outcome: 'ship' | 'overfit' | 'regression' | 'no-change' | 'train-only' | 'heldout-only' | 'aa' | 'no-data';
  /** Metrics (split/metric) that got detectably worse. */
  worse: string[];
  /** For `no-change`: the observed train (or held-out) task-success difference and the tasks it would take to see it. */
  needed: { split: string; difference: number; moreTasks: number; trialsPerTask: number } | null;
}

/** One side of a flipped task's transcript: a trial as the HTML trial browser shows it. */
export interface TranscriptSide {
  trial: number;
  pass: boolean;
  final_text: string | null;
  stop_reason: string;
  turns: { text: string | null; tool_calls: { name: string; arguments: string }[] }[];
  calls: {
    turn: number;
    name: string;
    arguments: string;
    routed: string;
    ok: boolean;
    result: string;
    schema_valid: boolean | null;
  }[];
  failing: string[];
}

/** A task whose success changed between A and B, with the tools it touches that changed. */
export interface FlippedReview {
  key: string;
  domain: string;
  task: string;
  provider: string | null;
  split: string;
  kind: string;
  direction: 'better' | 'worse';
  a: { c: number; n: number };
  b: { c: number; n: number };
  /** Names (B's, else A's) of changed tools this task expects, is distracted by, or called. */
  changedTools: string[];
  /** The task's user messages (from the task files), when the project was loaded. */
  messages: { role: string; content: string }[];
  /** Discordant pairs (one side passed, the other failed), A and B side by side. */
  pairs: { a: TranscriptSide; b: TranscriptSide }[];
}

/** Expected action → chosen action, counted on the paired trials of each side. */
export interface ConfusionDelta {
  expected: string;
  rows: { chosen: string; a: number; b: number }[];
  /** Pairs whose choice changed: A chose `from`, B chose `to`. */
  moved: { from: string; to: string; count: number }[];
}

/** Means over the paired trials of one provider (or all), A and B. */
export interface CostRow {
  provider: string;
  pairs: number;
  input_tokens: { a: number; b: number };
  output_tokens: { a: number; b: number };
  latency_p50: { a: number; b: number };
  latency_p95: { a: number; b: number };
  schema_tokens: { a: number; b: number };
  schema_bytes: { a: number; b: number };
  /** Total over the paired trials; null without a price for the model. */
  cost_usd: { a: number; b: number } | null;
}

export interface CompareReview {
  comparison: Comparison;
  decision: CompareDecision;
  /** One comparison per provider/model when a side has several (never pooled in the verdict alone). */
  byProvider: { provider: string; comparison: Comparison; decision: CompareDecision }[];
  surfaceDiffs: SurfaceDiff[];
  flipped: FlippedReview[];
  /** Flipped tasks beyond the ones carried with transcripts. */
  flippedTotal: number;
  confusion: ConfusionDelta[];
  costs: CostRow[];
  /** Notes on what the review could not show (project not loadable, surfaces edited since the run). */
  notes: string[];
}
