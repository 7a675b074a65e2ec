import { itemId, itemStatus, ARCHIVE_FIRST } from './fixture.ts';

/**
 * The generated task list of the bench suite, with what the scripted model
 * does on each: the "good" script (what a capable model does) and a "bad"
 * one (a typical miss). Both are plain data, so the suite's YAML and the
 * cassette come from the same source.
 */

/** One model turn that calls a tool: an action and its arguments, or a raw (broken) argument string. */
export interface ScriptCall {
  action: string;
  args: Record<string, unknown>;
  /** Send the arguments as invalid JSON (cut before the closing brace). */
  broken?: boolean;
}

/** What the scripted model does on a task: one call per turn, then a text answer. */
export interface Script {
  calls: ScriptCall[];
  text: string;
}

export interface BenchTask {
  /** The task as written to YAML (TaskSpec shape). */
  spec: Record<string, unknown>;
  split: 'train' | 'heldout';
  good: Script;
  bad: Script;
  /** On multiplexed surfaces the model takes the bad script even as its usual behaviour (surfaces then differ). */
  weakOnWide: boolean;
}

/** How many tasks of each kind (50 in all; × 4 surfaces = 200 task-surfaces). */
export const TASKS_PER_KIND = { 'must-call': 14, 'must-abstain': 12, 'similar-tool': 12, 'multi-step': 12 } as const;

const READER = { id: 'bench-user', permissions: ['item:read'] };
const WRITER = { id: 'bench-user', permissions: ['item:read', 'item:write'] };

/** Every third task of a kind is held out. */
const splitOf = (index: number): BenchTask['split'] => (index % 3 === 2 ? 'heldout' : 'train');

function mustCall(index: number): BenchTask {
  const id = itemId(index + 1);
  const status = itemStatus(index + 1);
  const timeout = index % 5 === 1;
  const brokenFirst = index % 7 === 3;
  const get: ScriptCall = { action: 'item.get', args: { item_id: id } };
  const calls = timeout ? [get, get] : brokenFirst ? [{ ...get, broken: true }, get] : [get];
  return {
    spec: {
      id: `call-status-${id}`,
      kind: 'must-call',
      messages: [{ role: 'user', content: `What is the status of item ${id}?` }],
      actor: READER,
      expect: { action: 'item.get', args: { item_id: id }, evidence: [status], forbid_effects: ['write'] },
      faults: timeout ? [{ action: 'item.get', on_call: 1, error: 'tool_timeout', good_next: 'retry' }] : [],
      limits: { max_calls: 3, max_turns: 4 },
    },
    split: splitOf(index),
    good: { calls, text: `Item ${id} is ${status}.` },
    bad: { calls: [], text: 'I cannot look that up.' },
    weakOnWide: false,
  };
}

function mustAbstain(index: number): BenchTask {
  const asks = index % 2 === 1;
  return {
    spec: asks
      ? {
          id: `abstain-ask-${index}`,
          kind: 'must-abstain',
          messages: [{ role: 'user', content: `Please add a note to my item (request ${index}).` }],
          actor: WRITER,
          expect: { abstain: true, ask: true },
          limits: { max_calls: 2, max_turns: 3 },
        }
      : {
          id: `abstain-direct-${index}`,
          kind: 'must-abstain',
          messages: [
            { role: 'user', content: `In one sentence, what does the abbreviation SKU mean? (question ${index})` },
          ],
          actor: READER,
          expect: { abstain: true },
          limits: { max_calls: 2, max_turns: 3 },
        },
    split: splitOf(index),
    good: asks
      ? { calls: [], text: 'Which item should I add the note to, and what should it say?' }
      : { calls: [], text: 'SKU means stock keeping unit.' },
    bad: asks
      ? {
          calls: [{ action: 'note.record', args: { item_id: itemId(1), note: 'note', change_id: `chg-bad-${index}` } }],
          text: 'Done.',
        }
      : { calls: [{ action: 'item.list', args: {} }], text: 'SKU means stock keeping unit.' },
    weakOnWide: false,
  };
}

function similarTool(index: number): BenchTask {
  const id = itemId(ARCHIVE_FIRST + index);
  return {
    spec: {
      id: `similar-archive-${id}`,
      kind: 'similar-tool',
      messages: [{ role: 'user', content: `Item ${id} was archived last year. What was its final status?` }],
      actor: READER,
      expect: { action: 'item.lookup_archive', args: { item_id: id }, distractors: ['item.get'], evidence: ['closed'] },
      limits: { max_calls: 3, max_turns: 4 },
    },
    split: splitOf(index),
    good: {
      calls: [{ action: 'item.lookup_archive', args: { item_id: id } }],
      text: `Archived item ${id} was closed.`,
    },
    bad: { calls: [{ action: 'item.get', args: { item_id: id } }], text: `I could not find ${id}.` },
    weakOnWide: index % 2 === 1,
  };
}

function multiStep(index: number): BenchTask {
  const position = (index % 5) + 1;
  const n = 3 * position;
  const id = itemId(n);
  const note = `Checked on visit ${index}`;
  const list: ScriptCall = { action: 'item.list', args: { status: 'waiting', limit: 5 } };
  const get: ScriptCall = { action: 'item.get', args: { item_id: id } };
  const preview: ScriptCall = { action: 'note.preview', args: { item_id: id, note } };
  const record: ScriptCall = { action: 'note.record', args: { item_id: id, note, change_id: `chg-${index}` } };
  return {
    spec: {
      id: `multi-note-${index}`,
      kind: 'multi-step',
      messages: [
        {
          role: 'user',
          content: `Find waiting item number ${position} in the list and add the note "${note}" to it. Preview the note first.`,
        },
      ],
      actor: WRITER,
      approve: 'after_preview',
      expect: {
        sequence: [
          { action: 'item.list', args: { status: 'waiting' } },
          { action: 'note.preview', args: { item_id: id, note } },
          { action: 'note.record', args: { item_id: id, note } },
        ],
        final_state: { note_count: 1, notes: { [id]: [note] } },
        evidence: [id],
      },
      limits: { max_calls: 6, max_turns: 7 },
    },
    split: splitOf(index),
    good: { calls: [list, get, preview, record], text: `Recorded the note on ${id}.` },
    bad: { calls: [list, get, record], text: `I tried to record the note on ${id}.` },
    weakOnWide: false,
  };
}

/** The 50 generated tasks, in a fixed order. */
export function benchTasks(): BenchTask[] {
  const make = {
    'must-call': mustCall,
    'must-abstain': mustAbstain,
    'similar-tool': similarTool,
    'multi-step': multiStep,
  };
  return (Object.keys(TASKS_PER_KIND) as (keyof typeof TASKS_PER_KIND)[]).flatMap((kind) =>
    Array.from({ length: TASKS_PER_KIND[kind] }, (_unused, index) => make[kind](index)),
  );
}
